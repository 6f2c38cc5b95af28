// Turns what the router or the network did into a RouterError, in one table
// each, so the rest of the adapter never matches on messages itself.
import { RouterError } from './router-error.js';

/** RouterOS trap category 2: "execution of command interrupted" (e.g. /cancel, a reboot). */
const CATEGORY_INTERRUPTED = 2;

/** Trap messages that mean the flash (or RAM disk) is full. */
const NO_SPACE_MESSAGES: readonly RegExp[] = [
  /not enough (free )?(disk |flash )?space/i,
  /no (free )?space/i,
  /out of (disk|flash|space)/i,
  /(disk|flash|storage)( is)? full/i,
  /insufficient (disk |flash )?space/i,
];

export type TrapPhase = 'login' | 'command';

/** Classifies a `!trap`. During login any trap means the credentials were refused. */
export function routerErrorFromTrap(
  trap: { message: string; category?: number },
  phase: TrapPhase,
  command?: string,
): RouterError {
  const text = trap.message || 'router refused the command';
  const details = trap.category === undefined ? {} : { category: trap.category };
  if (phase === 'login') return new RouterError('ROUTER_AUTH_FAILED', `login refused: ${text}`, details);
  const where = command ? `${command}: ` : '';
  if (NO_SPACE_MESSAGES.some((re) => re.test(text)))
    return new RouterError('NO_SPACE', `${where}${text}`, details);
  return new RouterError('ROUTER_TRAP', `${where}${text}`, {
    ...details,
    retryable: trap.category === CATEGORY_INTERRUPTED,
  });
}

const SOCKET_MESSAGES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused (API service disabled or wrong port?)',
  ECONNRESET: 'connection reset by the router',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'network timeout (router down or unreachable)',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host down',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  EADDRNOTAVAIL: 'address not available',
};

/** Classifies a socket-level failure: the router is out of reach, whatever the errno. */
export function routerErrorFromSocketError(err: unknown, endpoint: string): RouterError {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const known = typeof code === 'string' ? SOCKET_MESSAGES[code] : undefined;
  const detail = known ?? (err instanceof Error ? err.message : String(err));
  return new RouterError('ROUTER_UNREACHABLE', `router ${endpoint}: ${detail}`, { cause: err });
}
