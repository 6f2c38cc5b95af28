// `radius.disconnect`: the controller's signed Disconnect-Request goes to the router's
// `/radius incoming` from the relay's address, the one source the router accepts it from. The
// answer is reported as the router gave it; an ACK proves nothing by itself (the controller waits
// for the session's end in accounting or the active list).
import type { CommandOutput } from '../../protocol/index.js';
import type { CoaForwarder } from '../radius-relay/coa-forwarder.js';

type DisconnectOutput = CommandOutput<'radius.disconnect'>;

const DISCONNECT_ACK = 41;
const DISCONNECT_NAK = 42;
const ERROR_CAUSE = 101;

/** The Error-Cause attribute of an answer (a 4-byte integer), when present. */
function errorCause(answer: Buffer): number | null {
  const length = Math.min(answer.readUInt16BE(2), answer.length);
  for (let at = 20; at + 2 <= length;) {
    const type = answer[at]!;
    const size = answer[at + 1]!;
    if (size < 2) return null;
    if (type === ERROR_CAUSE && size === 6 && at + 6 <= length) return answer.readUInt32BE(at + 2);
    at += size;
  }
  return null;
}

export async function sendDisconnect(
  coa: CoaForwarder | undefined,
  options: { packet: string; id: string; signal?: AbortSignal },
): Promise<DisconnectOutput> {
  if (!coa) return { answer: 'NONE', error_cause: null };
  const answer = await coa.request(Buffer.from(options.packet, 'base64'), options.id, options.signal);
  if (!answer) return { answer: 'NONE', error_cause: null };
  if (answer[0] === DISCONNECT_ACK) return { answer: 'ACK', error_cause: null };
  if (answer[0] === DISCONNECT_NAK) return { answer: 'NAK', error_cause: errorCause(answer) };
  return { answer: 'NONE', error_cause: null };
}
