// POST /nas/:id/verify: reads the router's RADIUS set-up through its agent and compares it with
// what the provisioning script writes. A router that cannot be read is "not verified" with the
// reason, not an error: the app polls this after a 409 and must get an answer either way.
import { createHash } from 'node:crypto';
import type { CommandOutput } from '../../../protocol/index.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { AllocationView } from '../allocations/index.js';
import { tunnelStatus } from './nas-view.js';
import { nasComment, type RadiusTarget } from './provisioning-script.js';
import type { NasTable } from './tables.js';

export interface VerifyChecks {
  tunnel_connected: boolean;
  /** null: not read (the router could not be reached). */
  radius_entry_present: boolean | null;
  secret_matches: boolean | null;
  hotspot_uses_radius: boolean | null;
  accounting_enabled: boolean | null;
  /** `/radius incoming accept=yes`: Disconnect and CoA reach the router. */
  incoming_accepted: boolean | null;
}

export interface VerifyReport {
  verified: boolean;
  checks: VerifyChecks;
  /** Why the router was not read, when it was not. */
  reason: { code: string; message: string } | null;
  /** `ticketnet:` entries of other (older, deleted) NAS ids still on the router. */
  stale_entries: number;
}

type RadiusStatus = CommandOutput<'radius.status'>;

const unread = (tunnel: boolean): VerifyChecks => ({
  tunnel_connected: tunnel,
  radius_entry_present: null,
  secret_matches: null,
  hotspot_uses_radius: null,
  accounting_enabled: null,
  incoming_accepted: null,
});

/** Not read because the enrolment deployment of this router is still running. */
export const deployingReport = (tunnel: boolean): VerifyReport => ({
  verified: false,
  checks: unread(tunnel),
  reason: {
    code: 'DEPLOYMENT_IN_PROGRESS',
    message: 'The enrolment is still being deployed; verify again shortly',
  },
  stale_entries: 0,
});

export async function verifyRouter(
  deps: { runner: AgentCommandRunner; target: RadiusTarget; bridgeTimeoutMs: number },
  clientId: string,
  nas: NasTable,
  allocation: AllocationView,
): Promise<VerifyReport> {
  if (tunnelStatus(allocation) !== 'CONNECTED') {
    return {
      verified: false,
      checks: unread(false),
      reason: { code: 'VPN_TUNNEL_NOT_CONNECTED', message: "The router's agent link is not connected" },
      stale_entries: 0,
    };
  }
  const read = await deps.runner.run(
    { clientId, allocationId: allocation.id },
    'radius.status',
    {},
    deps.bridgeTimeoutMs,
  );
  if (read.kind === 'timeout') {
    return {
      verified: false,
      checks: unread(true),
      reason: {
        code: 'RADIUS_BRIDGE_UNAVAILABLE',
        message: 'The router did not answer through its agent in time',
      },
      stale_entries: 0,
    };
  }
  if (read.kind === 'refused') {
    return {
      verified: false,
      checks: unread(true),
      reason: {
        code: 'RADIUS_PROVISION_ERROR',
        message: `The router could not be read: ${read.fault.message}`,
      },
      stale_entries: 0,
    };
  }
  const checks = compare(read.output, nas, deps.target);
  return {
    verified: Object.values(checks).every((v) => v === true),
    checks,
    reason: null,
    stale_entries: read.output.radius.filter((e) => e.comment !== nasComment(nas.id)).length,
  };
}

function compare(status: RadiusStatus, nas: NasTable, target: RadiusTarget): VerifyChecks {
  const entry = status.radius.find((e) => e.comment === nasComment(nas.id));
  const secretHash = createHash('sha256').update(nas.secret, 'utf8').digest('hex');
  // The profiles hotspot servers run on; every profile when no server exists (nothing to narrow to).
  const inUse = status.hotspot_profiles.filter((p) => p.in_use);
  const profiles = inUse.length > 0 ? inUse : status.hotspot_profiles;
  return {
    tunnel_connected: true,
    radius_entry_present:
      entry !== undefined &&
      !entry.disabled &&
      entry.address === target.address &&
      entry.service.includes('hotspot') &&
      entry.authentication_port === target.authPort &&
      entry.accounting_port === target.acctPort,
    secret_matches: entry !== undefined && entry.secret_sha256 === secretHash,
    hotspot_uses_radius: profiles.length > 0 && profiles.every((p) => p.use_radius),
    accounting_enabled: profiles.length > 0 && profiles.every((p) => p.radius_accounting),
    incoming_accepted: status.incoming_accept,
  };
}
