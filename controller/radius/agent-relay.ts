// The controller's end of the agent RADIUS relay: a `radius` frame from an authenticated agent
// carries one datagram its router sent to the agent. The NAS is the one of the agent's allocation
// (the link's signature is the proof of origin, as the source address is for direct UDP); the
// packet must still verify against that NAS's secret, so a router configured with another
// tenant's secret gets no answer.
import { errorFields, type Logger } from '../logger.js';
import type { NasEntry } from './nas-directory.js';
import type { PacketKind, PacketSource } from './udp-listener.js';

export interface RelayFrame {
  id: string;
  packet: string;
  peer?: string | undefined;
}

export interface RelayDeps {
  /** `RadiusService.handle`. */
  handle(kind: PacketKind, msg: Buffer, source: PacketSource, nas: NasEntry): Promise<Buffer | null>;
  /** The PENDING or ACTIVE NAS of an allocation (`DbNasDirectory.forAllocation`). */
  forAllocation(allocationId: string): Promise<NasEntry | null>;
  logger: Logger;
}

// `auth:192.0.2.1:40000` — what the agent says the router sent from, and to which service.
const PEER = /^(auth|acct):([0-9.]{7,15}):(\d{1,5})$/;
// Allocations already logged as having no NAS; cleared when it grows past this.
const MAX_REMEMBERED = 10_000;

/** The hub's `RadiusRelayHandler`: answers a relayed datagram, or null to stay silent. Never throws. */
export function agentRadiusRelay(deps: RelayDeps) {
  const logger = deps.logger.child({ component: 'radius-relay' });
  const warned = new Set<string>();

  return async (allocationId: string, clientId: string, frame: RelayFrame): Promise<RelayFrame | null> => {
    const peer = PEER.exec(frame.peer ?? '');
    if (!peer) {
      logger.debug({ allocationId, peer: frame.peer }, 'relayed radius frame without a usable peer');
      return null;
    }
    const kind = peer[1] as PacketKind;
    try {
      const nas = await deps.forAllocation(allocationId);
      // The NAS row and the allocation must be the same tenant's; a mismatch is a stale row.
      if (!nas || nas.clientId !== clientId) {
        if (!warned.has(allocationId)) {
          if (warned.size >= MAX_REMEMBERED) warned.clear();
          warned.add(allocationId);
          logger.info({ allocationId }, 'relayed radius dropped: no NAS enrolled for this router');
        }
        return null;
      }
      warned.delete(allocationId);
      // The retransmit cache keys on the source: the relay identity keeps routers apart.
      const source = { address: `agent:${allocationId}`, port: Number(peer[3]) };
      const reply = await deps.handle(kind, Buffer.from(frame.packet, 'base64'), source, nas);
      return reply ? { id: frame.id, packet: reply.toString('base64') } : null;
    } catch (err) {
      // Bookkeeping not committed: no answer, the router retries this very request.
      logger.error({ ...errorFields(err, logger), allocationId, kind }, 'relayed radius request failed');
      return null;
    }
  };
}
