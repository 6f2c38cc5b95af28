// RADIUS carried over an agent's link: the agent relays its router's datagrams in `radius` frames,
// and the hub hands each to a handler the composition root injects.
import type { z } from 'zod';
import type { MESSAGE_SCHEMAS } from '../../protocol/index.js';

/** A `radius` frame's body: one RADIUS datagram relayed over the link. */
export type RadiusFrame = z.output<(typeof MESSAGE_SCHEMAS)['radius']>;

/**
 * Answers a RADIUS datagram an agent relayed for its router: the `radius` frame to send back, or
 * null to stay silent (the router retries). Injected by the composition root so the hub does not
 * depend on the RADIUS server. Must not throw.
 */
export type RadiusRelayHandler = (
  allocationId: string,
  clientId: string,
  frame: RadiusFrame,
) => Promise<RadiusFrame | null>;
