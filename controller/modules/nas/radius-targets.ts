// Where each enrolled router sends its RADIUS (its provisioning script's `/radius` entry):
// - through its agent (nasname `agent:<allocation id>`): the relay address and ports the agent
//   reported in its facts (its address as the router sees it: a container's veth address, a LAN
//   box's LAN address), else the controller-wide fallback;
// - straight to this controller over a VPN (nasname = the router's source address): the
//   controller's own RADIUS address and ports, only while direct UDP RADIUS listens.
import type { AllocationView } from '../allocations/index.js';
import { isRelayIdentity } from './db-nas-directory.js';
import type { RadiusTarget } from './provisioning-script.js';

/** The direct UDP RADIUS server as a router on the VPN reaches it; null when it does not listen. */
export interface DirectRadiusServer {
  endpoint(): { address: string; authPort: number; acctPort: number } | null;
}

export interface RadiusTargetsOptions {
  /** Where relayed routers send RADIUS when their agent reported no relay. */
  relayFallback: { address: string; authPort: number; acctPort: number };
  direct: DirectRadiusServer;
  interimSeconds: number;
}

export class RadiusTargets {
  constructor(private readonly options: RadiusTargetsOptions) {}

  /** The target of a NAS; undefined for a direct NAS while direct RADIUS does not listen. */
  forNas(nas: { nasname: string }, allocation: AllocationView | undefined): RadiusTarget | undefined {
    return isRelayIdentity(nas.nasname) ? this.relay(allocation) : this.direct();
  }

  relay(allocation: AllocationView | undefined): RadiusTarget {
    const { relayFallback, interimSeconds } = this.options;
    const reported = allocation?.radius_relay;
    return {
      address: reported?.address ?? relayFallback.address,
      authPort: reported?.auth_port ?? relayFallback.authPort,
      acctPort: reported?.acct_port ?? relayFallback.acctPort,
      interimSeconds,
    };
  }

  direct(): RadiusTarget | undefined {
    const endpoint = this.options.direct.endpoint();
    return endpoint ? { ...endpoint, interimSeconds: this.options.interimSeconds } : undefined;
  }
}
