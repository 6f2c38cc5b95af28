// The client's request for its router's management ports (`POST /web-access`, ours): the router's
// services read through its agent, the ports opened for the address that asked, and the topology's
// `web_access` (docs/api/equipment.md, Web access).
import { AppError } from '../../core/app-error.js';
import type { AgentHub } from '../../hub/index.js';
import type { AllocationView } from '../allocations/index.js';
import type { EquipmentDeps } from './deps.js';
import type { RouterOwners } from './router-owner.js';
import { plainAddress, type WebAccessGates } from './web-access-gates.js';
import { webAccessTargets, webAccessView, type WebAccess } from './web-access-rules.js';

export interface WebAccessGrant {
  router_serial: string | null;
  web_access: WebAccess;
  /** The only address the ports admit. */
  source_address: string;
  /** The ports close once nothing crossed them for this long. */
  idle_close_seconds: number;
}

export interface WebAccessDeps {
  deps: EquipmentDeps;
  owners: RouterOwners;
  hub: Pick<AgentHub, 'holds'>;
  gates: WebAccessGates;
  idleMs: number;
  /** `{vpn_host}`; unset: the host the client reached the controller on. */
  vpnHost: string | undefined;
  commandWaitMs: number;
}

export class WebAccessService {
  constructor(private readonly d: WebAccessDeps) {}

  /** Opens the router's management ports for `source` (the PRIMARY's unless a serial is given). */
  async grant(
    clientId: string,
    serial: string | undefined,
    request: { source: string; host: string },
  ): Promise<WebAccessGrant> {
    const allocation = serial
      ? await this.d.owners.allocationFor(clientId, serial)
      : await this.#primary(clientId);
    if (allocation.link_state !== 'CONNECTED') {
      throw new AppError('VPN_TUNNEL_NOT_CONNECTED', "The router's site agent is not connected", {
        details: { allocation_id: allocation.id, link_state: allocation.link_state },
      });
    }
    // the ports carry bytes over the link this instance holds; another instance's cannot be used
    if (!this.d.hub.holds(allocation.id)) {
      throw new AppError('EQUIPMENT_LINK_DOWN', "The router's agent link is not held by this server");
    }
    const { services } = await this.d.deps.runner.runForRequest(
      { clientId, allocationId: allocation.id },
      'router.services',
      {},
      this.d.commandWaitMs,
    );
    const source = plainAddress(request.source);
    const grant = await this.d.gates.grant(
      { clientId, allocationId: allocation.id, source, host: this.d.vpnHost ?? request.host },
      webAccessTargets(services),
    );
    if (!grant) {
      throw new AppError('WEB_ACCESS_PORTS_EXHAUSTED', 'No management port is free on this server now');
    }
    return {
      router_serial: allocation.router.serial,
      web_access: webAccessView(grant.host, grant.ports, true),
      source_address: source,
      idle_close_seconds: Math.round(this.d.idleMs / 1000),
    };
  }

  /** What the topology shows for a router: its latest open grant's ports, else nulls. */
  view(clientId: string, allocationId: string, reachable: boolean): WebAccess {
    const grant = this.d.gates.latest(clientId, allocationId);
    return webAccessView(grant?.host ?? '', grant?.ports ?? [], reachable);
  }

  async #primary(clientId: string): Promise<AllocationView> {
    const primary = (await this.d.deps.nas.topology(clientId)).primary;
    const allocation = primary
      ? (await this.d.deps.allocations.list(clientId)).find((a) => a.id === primary.allocation_id)
      : undefined;
    if (!allocation || allocation.status === 'REVOKED') {
      throw new AppError('ROUTER_NOT_OWNED', 'No PRIMARY router in your topology; name a router_serial', {
        details: { reason: 'NO_PRIMARY' },
      });
    }
    return allocation;
  }
}
