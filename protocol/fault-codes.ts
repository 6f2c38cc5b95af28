import { z } from 'zod';

/**
 * Closed list of the reasons a command can fail, carried in `result.fault.code`.
 * A router fault is data, not a broken link: the agent always answers a `result`.
 * - `ROUTER_UNREACHABLE`: no TCP connection to the RouterOS API.
 * - `ROUTER_TIMEOUT`: connected, but the router stopped answering in time.
 * - `ROUTER_TRAP`: RouterOS answered `!trap` (the message says what it refused).
 * - `ROUTER_AUTH_FAILED`: the router refused the agent's credentials.
 * - `UNKNOWN_COMMAND`: the name is not in this agent's catalogue.
 * - `BAD_PARAMS`: the params do not match the catalogue's schema.
 * - `DEADLINE_PASSED`: the deadline was over before the agent could start or finish.
 * - `AGENT_ERROR`: a fault in the agent itself (or output that does not match the catalogue).
 * - `NO_SPACE`: the router (or agent) has no room left for the file or objects to write.
 * - `BACKUP_EMPTY`: the router wrote a backup file of 0 bytes although it has room: nothing to keep.
 */
export const FAULT_CODES = [
  'ROUTER_UNREACHABLE',
  'ROUTER_TIMEOUT',
  'ROUTER_TRAP',
  'ROUTER_AUTH_FAILED',
  'UNKNOWN_COMMAND',
  'BAD_PARAMS',
  'DEADLINE_PASSED',
  'AGENT_ERROR',
  'NO_SPACE',
  'BACKUP_EMPTY',
] as const;

/** One of `FAULT_CODES`. */
export type FaultCode = (typeof FAULT_CODES)[number];

/** Schema of `result.fault`: what went wrong and whether sending the same command again may succeed. */
export const FAULT_SCHEMA = z.object({
  code: z.enum(FAULT_CODES),
  message: z.string().max(1000),
  retryable: z.boolean(),
});

/** A command fault as carried in `result.fault`. */
export type Fault = z.output<typeof FAULT_SCHEMA>;
