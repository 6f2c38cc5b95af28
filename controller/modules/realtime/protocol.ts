// Centrifugo's client protocol, version 2, JSON encoding (docs/realtime.md): a frame holds one or
// more JSON objects separated by newlines; a command carries an `id` and one method object, its
// reply the same `id` and a result or an `error`; a push has no id; an empty object from the server
// is a ping, the client answers an empty object (pong).

/** Error codes of replies (the client library acts on them). */
export const ERR = {
  internal: { code: 100, message: 'internal server error' },
  unknownChannel: { code: 102, message: 'unknown channel' },
  permissionDenied: { code: 103, message: 'permission denied' },
  methodNotFound: { code: 104, message: 'method not found' },
  alreadySubscribed: { code: 105, message: 'already subscribed' },
  badRequest: { code: 107, message: 'bad request' },
  notAvailable: { code: 108, message: 'not available' },
  tokenExpired: { code: 109, message: 'token expired' },
  unrecoverablePosition: { code: 112, message: 'unrecoverable position' },
} as const;

export type ReplyError = (typeof ERR)[keyof typeof ERR];

/**
 * Close codes: 3000-3499 make the client reconnect, 3500-3999 stop it (the reason is plain
 * text, or JSON `{reason, reconnect}`).
 */
export const CLOSE = {
  shutdown: { code: 3001, reason: 'shutdown' },
  noPong: { code: 3012, reason: 'no pong' },
  invalidToken: { code: 3500, reason: 'invalid token' },
  badRequest: { code: 3501, reason: 'bad request' },
} as const;

export interface Command {
  id?: number;
  connect?: { token?: string; name?: string; version?: string };
  subscribe?: { channel?: string; recover?: boolean; offset?: number; epoch?: string };
  unsubscribe?: { channel?: string };
  publish?: { channel?: string };
  presence?: { channel?: string };
  presence_stats?: { channel?: string };
  history?: {
    channel?: string;
    limit?: number;
    since?: { offset?: number; epoch?: string };
    reverse?: boolean;
  };
  ping?: object;
  send?: object;
  rpc?: object;
  refresh?: object;
  sub_refresh?: object;
}

/** A method the client may name; any other key but `id` makes the command a bad request. */
export const METHODS = [
  'connect',
  'subscribe',
  'unsubscribe',
  'publish',
  'presence',
  'presence_stats',
  'history',
  'ping',
  'send',
  'rpc',
  'refresh',
  'sub_refresh',
] as const;

export type Method = (typeof METHODS)[number];

/** The method a command names, null for an empty object (a pong), or 'bad' when it is malformed. */
export function methodOf(cmd: unknown): Method | null | 'bad' {
  if (typeof cmd !== 'object' || cmd === null || Array.isArray(cmd)) return 'bad';
  const keys = Object.keys(cmd).filter((k) => k !== 'id');
  if (keys.length === 0) return 'id' in cmd ? 'bad' : null;
  if (keys.length !== 1) return 'bad';
  const key = keys[0] as Method;
  if (!METHODS.includes(key)) return 'bad';
  const id = (cmd as { id?: unknown }).id;
  // Every method but `send` expects a reply, so needs an id.
  if (key !== 'send' && (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)) return 'bad';
  return key;
}

/** Splits a frame into its JSON objects; null when one of them is not JSON. */
export function parseFrame(text: string): unknown[] | null {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      return null;
    }
  }
  return out;
}

export interface Namespace {
  presence: boolean;
  /** Publications kept per channel for history and recovery (0: none exposed). */
  historySize: number;
}

// A name without a colon lives in the default namespace: no presence, no history.
export const NAMESPACES: Readonly<Record<string, Namespace>> = {
  '': { presence: false, historySize: 0 },
  support: { presence: true, historySize: 1000 },
};

/** Kept for the default namespace anyway, so instances fan out by offset there too. */
export const FANOUT_KEEP = 100;

/** The namespace of a channel name, or a reply error (102 unknown, 107 malformed). */
export function namespaceOf(channel: unknown): Namespace | ReplyError {
  if (typeof channel !== 'string' || channel === '' || channel.length > 255) return ERR.badRequest;
  const colon = channel.indexOf(':');
  const ns = colon < 0 ? '' : channel.slice(0, colon);
  if (colon === 0 || colon === channel.length - 1) return ERR.unknownChannel;
  return Object.hasOwn(NAMESPACES, ns) ? NAMESPACES[ns]! : ERR.unknownChannel;
}

export const isReplyError = (v: Namespace | ReplyError): v is ReplyError => 'code' in v;
