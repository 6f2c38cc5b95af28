// Access-Request: finds the ticket of the User-Name in the NAS's tenant, checks the PAP or CHAP
// password, applies the voucher rules and answers Accept (with the ticket's limits: its own, else
// its profile's) or Reject.
import radius from 'radius';
import type { Clock } from '../core/clock.js';
import { decideAuth, type AuthTicket, type RejectReason } from '../modules/tickets/index.js';
import type { NasEntry } from './nas-directory.js';
import { ATTR, chapMatches, findAttribute, papMatches } from './packet-crypto.js';
import { encodeReply, grantBytes } from './reply-builder.js';
import type { AuthResult, RadiusAuthLogTable } from './tables.js';
import type { TicketLookup } from './ticket-lookup.js';
import type { WriteBehind } from './write-behind.js';

export interface AcceptedEvent {
  clientId: string;
  nasId: string;
  username: string;
  at: Date;
  /** The ticket's first authentication (it went ACTIVE → USED). */
  firstUse: boolean;
  callingStationId: string | null;
}

/** Text a hotspot login page shows on refusal. Unknown code and wrong password read the same. */
const REPLY_MESSAGE: Record<RejectReason, string> = {
  UNKNOWN_USER: 'Invalid code or password',
  BAD_PASSWORD: 'Invalid code or password',
  DELETED: 'Invalid code or password',
  DISABLED: 'This ticket is suspended',
  EXHAUSTED: 'This ticket is used up',
  EXPIRED: 'This ticket has expired',
};

export interface AccessHandlerDeps {
  tickets: TicketLookup;
  writer: WriteBehind;
  clock: Clock;
  interimSeconds: number;
  accepted(event: AcceptedEvent): void;
}

/** Replies to refusals: the same bytes for every refusal of a reason, encoded once. */
const REJECT_ATTRIBUTES = Object.fromEntries(
  Object.entries(REPLY_MESSAGE).map(([reason, text]) => [reason, [['Reply-Message', text]]]),
) as Record<RejectReason, [string, string][]>;

type Attributes = Record<string, unknown>;

// The User-Password is checked in place (the codec would need the secret to hide and show it);
// every other attribute comes from the codec's decode.
function passwordOk(packet: Buffer, attrs: Attributes, secret: string, ticket: AuthTicket): boolean {
  const pap = findAttribute(packet, ATTR.USER_PASSWORD);
  if (pap >= 0) {
    const hidden = packet.subarray(pap, pap - 2 + packet[pap - 1]!);
    return papMatches(hidden, secret, packet.subarray(4, 20), ticket.password);
  }
  const chap = attrs['CHAP-Password'];
  if (Buffer.isBuffer(chap)) {
    const challenge = attrs['CHAP-Challenge'];
    return chapMatches(
      chap,
      Buffer.isBuffer(challenge) ? challenge : packet.subarray(4, 20),
      ticket.password,
    );
  }
  return false;
}

function logRow(
  nas: NasEntry,
  username: string,
  callingStationId: string | null,
  at: string,
  result: AuthResult,
  reason: string | null,
): RadiusAuthLogTable {
  return {
    client_id: nas.clientId,
    nas_id: nas.nasId,
    username,
    result,
    reason,
    calling_station_id: callingStationId,
    at,
  };
}

export class AccessHandler {
  constructor(private readonly deps: AccessHandlerDeps) {}

  /** The signed reply, or throws when the bookkeeping it depends on could not be written (no reply then). */
  async handle(packet: Buffer, nas: NasEntry): Promise<Buffer> {
    const { tickets, writer, clock } = this.deps;
    const attrs = radius.decode_without_secret({ packet }).attributes as Attributes;
    const username = typeof attrs['User-Name'] === 'string' ? attrs['User-Name'] : '';
    const callingStationId =
      typeof attrs['Calling-Station-Id'] === 'string' ? attrs['Calling-Station-Id'] : null;
    const ticket = username ? await tickets.find(nas.clientId, username) : undefined;
    const ok = ticket !== undefined && passwordOk(packet, attrs, nas.secret, ticket);
    const now = clock.now();
    const at = now.toISOString();
    const decision = decideAuth(ticket, ok, now);
    if (decision.result === 'REJECT') {
      writer.log(logRow(nas, username, callingStationId, at, 'REJECT', decision.reason));
      if (decision.exhaust) await writer.exhaust({ clientId: nas.clientId, code: username });
      return encodeReply('Access-Reject', packet, nas.secret, REJECT_ATTRIBUTES[decision.reason]);
    }
    writer.log(logRow(nas, username, callingStationId, at, 'ACCEPT', decision.firstUse ? 'FIRST_USE' : null));
    if (decision.firstUse) {
      await writer.firstUse({
        clientId: nas.clientId,
        code: username,
        nasId: nas.nasId,
        at,
        expiresAt: decision.expiresAt,
      });
    }
    const reply = encodeReply(
      'Access-Accept',
      packet,
      nas.secret,
      grantBytes(decision.grant, this.deps.interimSeconds),
    );
    this.deps.accepted({
      clientId: nas.clientId,
      nasId: nas.nasId,
      username,
      at: now,
      firstUse: decision.firstUse,
      callingStationId,
    });
    return reply;
  }
}
