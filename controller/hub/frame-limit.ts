// The largest frame a socket accepts is fixed by ws when the upgrade completes (the server's
// `maxPayload`). The hub accepts upgrades with the small limit of an unauthenticated peer and raises
// it once the agent has proved who it is, so an anonymous socket cannot make the controller buffer
// a large frame. ws has no public setter: its Receiver compares each frame header's length with
// `_maxPayload` before buffering any of the payload (over it: close 1009), so that field is raised.
import type { WebSocket } from 'ws';

interface ReceiverLimit {
  _maxPayload?: unknown;
}

/** Raises the largest frame `ws` accepts from now on. @throws Error when ws's internals changed. */
export function raiseFrameLimit(ws: WebSocket, bytes: number): void {
  const receiver = (ws as unknown as { _receiver?: ReceiverLimit })._receiver;
  if (typeof receiver?._maxPayload !== 'number') {
    // Never silently keep the small limit: an authenticated agent's large results would be refused.
    throw new Error('this ws version keeps no _receiver._maxPayload; the frame limit cannot be raised');
  }
  receiver._maxPayload = bytes;
}
