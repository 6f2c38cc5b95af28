// One client connection on /realtime: its commands in order (connect first), its subscriptions
// with the offset each has reached, and the server pings. The broker feeds it publications.
import type { Duplex } from 'node:stream';
import { decodeJwt } from 'jose';
import WebSocket from 'ws';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { AccountPrincipal } from '../../http/principal.js';
import { VERSION } from '../../version.js';
import {
  CLOSE,
  ERR,
  isReplyError,
  methodOf,
  namespaceOf,
  parseFrame,
  type Command,
  type Namespace,
  type ReplyError,
} from './protocol.js';
import { directSocketOf, sendPrebuilt, type PrebuiltFrame } from './prebuilt-frame.js';
import * as q from './queries.js';

export interface SessionDeps {
  db: Db;
  clock: Clock;
  authenticate(token: string): Promise<AccountPrincipal | null>;
  instanceId(): string;
  mayRead(channel: string, account: AccountPrincipal): Promise<boolean>;
  /** The channel's stream, oldest kept offset included (created when absent). */
  stream(channel: string): Promise<q.Stream>;
  /** The channel's epoch and an offset every publication up to which is stored (created when absent). */
  position(channel: string): Promise<{ epoch: string; top: number }>;
  /** Follows the channel from now on (pushes wait for a position). */
  attach(channel: string, sub: Subscription): void;
  /** The subscription has its position: push what came after it. */
  caughtUp(channel: string, sub: Subscription): void;
  detach(channel: string, sub: Subscription): void;
  /** Presence rows, written in batches; `flushPresence` waits for those queued. */
  addPresence(row: q.PresenceRow): void;
  removePresence(clientId: string, channel?: string): void;
  flushPresence(): Promise<void>;
}

/** One channel followed by one socket: the broker fans out to these. */
export class Subscription {
  /**
   * Offset of the last publication this client has (pushed or in its subscribe reply); undefined
   * until the subscribe reply is sent.
   */
  offset: number | undefined = undefined;
  constructor(
    readonly ns: Namespace,
    private readonly session: ClientSession,
  ) {}

  /**
   * Publications up to offset `last`, in one frame built for every subscriber at the same position
   * (the broker picks it from this one's offset); ignored unless newer than what the client has.
   */
  deliver(last: number, message: PrebuiltFrame): void {
    if (this.offset === undefined || last <= this.offset) return;
    this.offset = last;
    this.session.send(message);
  }
}

const MAX_HISTORY = 1000;
/** A socket that has not sent its connect by then is closed (it holds a slot for nothing). */
const CONNECT_WITHIN_MS = 10_000;
type Reply = Record<string, unknown>;

export class ClientSession {
  readonly clientId = newId();
  #account: AccountPrincipal | null = null;
  #connecting = false;
  #queue: Promise<void> = Promise.resolve();
  readonly #subs = new Map<string, Subscription>();
  #pinger: NodeJS.Timeout | undefined;
  #heardSincePing = true;
  /** Where prebuilt frames are written (looked up once: a fan-out sends to thousands). */
  readonly #direct: Duplex | null;
  closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: SessionDeps,
    private readonly pingSeconds: number,
  ) {
    this.#direct = directSocketOf(ws);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return this.#close(CLOSE.badRequest);
      this.#heardSincePing = true;
      const commands = parseFrame(data.toString('utf8'));
      if (!commands) return this.#close(CLOSE.badRequest);
      for (const cmd of commands) this.#queue = this.#queue.then(() => this.#handle(cmd as Command));
    });
    ws.on('close', () => {
      this.closed = true;
      clearInterval(this.#pinger);
      for (const [channel, sub] of this.#subs) deps.detach(channel, sub);
      if (this.#subs.size > 0) deps.removePresence(this.clientId);
    });
    ws.on('error', () => undefined);
    const idle = setTimeout(() => {
      if (!this.#account) this.#close(CLOSE.badRequest);
    }, CONNECT_WITHIN_MS);
    idle.unref();
    ws.once('close', () => clearTimeout(idle));
  }

  /** A message framed once for many sockets. */
  send(message: PrebuiltFrame): void {
    sendPrebuilt(this.ws, message, this.#direct);
  }

  shutdown(): void {
    this.#close(CLOSE.shutdown);
  }

  async #handle(cmd: Command): Promise<void> {
    if (this.closed) return;
    const method = methodOf(cmd);
    if (method === null) return; // a pong
    if (method === 'bad') return this.#close(CLOSE.badRequest);
    if (method === 'connect') return this.#connect(cmd);
    if (!this.#account) return this.#close(CLOSE.badRequest);
    try {
      switch (method) {
        case 'subscribe':
          return await this.#subscribe(cmd);
        case 'unsubscribe':
          return this.#unsubscribe(cmd);
        case 'publish':
          // Clients never publish: events come from the controller's own modules.
          return this.#error(cmd, ERR.permissionDenied);
        case 'presence':
        case 'presence_stats':
          return await this.#presence(cmd, method);
        case 'history':
          return await this.#history(cmd);
        case 'ping':
          return this.#reply(cmd, { ping: {} });
        case 'send':
          return;
        default:
          return this.#error(cmd, ERR.methodNotFound);
      }
    } catch {
      this.#error(cmd, ERR.internal);
    }
  }

  async #connect(cmd: Command): Promise<void> {
    if (this.#account || this.#connecting) return this.#close(CLOSE.badRequest);
    this.#connecting = true;
    const token = cmd.connect?.token;
    if (typeof token !== 'string' || token === '') return this.#close(CLOSE.invalidToken);
    const account = await this.deps.authenticate(token).catch(() => null);
    if (!account) {
      // An expired token is answered so the client can fetch a new one; any other is refused.
      if (isExpired(token, this.deps.clock.now())) {
        this.#connecting = false;
        return this.#error(cmd, ERR.tokenExpired);
      }
      return this.#close(CLOSE.invalidToken);
    }
    this.#account = account;
    this.#reply(cmd, {
      connect: { client: this.clientId, version: VERSION, ping: this.pingSeconds, pong: true },
    });
    this.#pinger = setInterval(() => this.#ping(), this.pingSeconds * 1000);
    this.#pinger.unref();
  }

  async #subscribe(cmd: Command): Promise<void> {
    const req = cmd.subscribe ?? {};
    const channel = req.channel;
    const ns = namespaceOf(channel);
    if (isReplyError(ns)) return this.#error(cmd, ns);
    const name = channel as string;
    if (this.#subs.has(name)) return this.#error(cmd, ERR.alreadySubscribed);
    if (!(await this.deps.mayRead(name, this.#account!))) return this.#error(cmd, ERR.permissionDenied);
    if (this.closed) return;
    const recoverable = ns.historySize > 0;
    // Registered first, without a position: no push reaches it until the reply is sent and the
    // position set; then the broker catches it up from that position, in order.
    const sub = new Subscription(ns, this);
    this.#subs.set(name, sub);
    this.deps.attach(name, sub);
    const now = iso(this.deps.clock.now());
    const recovering = recoverable && req.recover === true;
    // Only a recovery needs the oldest offset kept (a read of its own).
    const stream: { epoch: string; top: number; oldest?: number } = recovering
      ? await this.deps.stream(name)
      : await this.deps.position(name);
    const result: Reply = {};
    if (recoverable) {
      result.recoverable = true;
      result.epoch = stream.epoch;
      result.offset = stream.top;
      if (recovering && stream.oldest !== undefined) {
        const from = typeof req.offset === 'number' ? req.offset : 0;
        // Recovered only from the same stream generation with nothing pruned since `from`.
        const recovered = req.epoch === stream.epoch && from <= stream.top && from + 1 >= stream.oldest;
        const pubs = recovered ? await q.publicationsAfter(this.deps.db, name, from, stream.top - from) : [];
        result.was_recovering = true;
        result.recovered = recovered;
        result.publications = pubs.map((p) => JSON.parse(pubJson(p, ns)));
      }
    }
    if (this.closed || this.#subs.get(name) !== sub) return;
    this.#reply(cmd, { subscribe: result });
    sub.offset = stream.top;
    this.deps.caughtUp(name, sub);
    if (ns.presence) {
      this.deps.addPresence({
        client_id: this.clientId,
        channel: name,
        user_id: this.#account!.accountId,
        instance_id: this.deps.instanceId(),
        seen_at: now,
      });
    }
  }

  #unsubscribe(cmd: Command): void {
    const channel = cmd.unsubscribe?.channel;
    if (typeof channel !== 'string') return this.#error(cmd, ERR.badRequest);
    const sub = this.#subs.get(channel);
    if (sub) {
      this.#subs.delete(channel);
      this.deps.detach(channel, sub);
      this.deps.removePresence(this.clientId, channel);
    }
    this.#reply(cmd, { unsubscribe: {} });
  }

  async #presence(cmd: Command, method: 'presence' | 'presence_stats'): Promise<void> {
    const channel = (method === 'presence' ? cmd.presence : cmd.presence_stats)?.channel;
    const ns = namespaceOf(channel);
    if (isReplyError(ns)) return this.#error(cmd, ns);
    if (!ns.presence) return this.#error(cmd, ERR.notAvailable);
    if (!(await this.deps.mayRead(channel as string, this.#account!)))
      return this.#error(cmd, ERR.permissionDenied);
    await this.deps.flushPresence();
    const rows = await q.presenceOf(this.deps.db, channel as string);
    if (method === 'presence_stats') {
      const users = new Set(rows.map((r) => r.user_id));
      return this.#reply(cmd, { presence_stats: { num_clients: rows.length, num_users: users.size } });
    }
    const presence: Record<string, { client: string; user: string }> = {};
    for (const r of rows) presence[r.client_id] = { client: r.client_id, user: r.user_id };
    this.#reply(cmd, { presence: { presence } });
  }

  async #history(cmd: Command): Promise<void> {
    const req = cmd.history ?? {};
    const ns = namespaceOf(req.channel);
    if (isReplyError(ns)) return this.#error(cmd, ns);
    if (ns.historySize === 0) return this.#error(cmd, ERR.notAvailable);
    const channel = req.channel as string;
    if (!(await this.deps.mayRead(channel, this.#account!))) return this.#error(cmd, ERR.permissionDenied);
    const stream = await q.stream(this.deps.db, channel);
    if (!stream) return this.#reply(cmd, { history: { publications: [], epoch: '', offset: 0 } });
    const limit = Math.min(typeof req.limit === 'number' && req.limit > 0 ? req.limit : 0, MAX_HISTORY);
    let pubs: q.StoredPublication[] = [];
    if (limit > 0) {
      if (req.since) {
        if (req.since.epoch !== undefined && req.since.epoch !== stream.epoch) {
          return this.#error(cmd, ERR.unrecoverablePosition);
        }
        const after = req.since.offset ?? 0;
        if (after + 1 < stream.oldest && after < stream.top)
          return this.#error(cmd, ERR.unrecoverablePosition);
        pubs = await q.publicationsAfter(this.deps.db, channel, after, limit, req.reverse === true);
      } else if (req.reverse) {
        pubs = await q.publicationsAfter(this.deps.db, channel, 0, limit, true);
      } else {
        pubs = await q.publicationsAfter(this.deps.db, channel, 0, limit);
      }
    }
    this.#reply(cmd, {
      history: {
        publications: pubs.map((p) => JSON.parse(pubJson(p, ns))),
        epoch: stream.epoch,
        offset: stream.top,
      },
    });
  }

  #ping(): void {
    if (!this.#heardSincePing) return this.#close(CLOSE.noPong);
    this.#heardSincePing = false;
    this.#sendRaw('{}');
  }

  #reply(cmd: Command, result: Reply): void {
    this.#sendRaw(JSON.stringify({ id: cmd.id, ...result }));
  }

  #error(cmd: Command, error: ReplyError): void {
    if (cmd.id === undefined) return;
    this.#sendRaw(JSON.stringify({ id: cmd.id, error: { code: error.code, message: error.message } }));
  }

  #sendRaw(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  #close(how: { code: number; reason: string }): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.#pinger);
    this.ws.close(how.code, how.reason);
  }
}

/** The push of a publication on a channel of this namespace (one line of a frame). */
export function pushFrame(channel: string, pub: q.StoredPublication, ns: Namespace): Buffer {
  return Buffer.from(`{"push":{"channel":${JSON.stringify(channel)},"pub":${pubJson(pub, ns)}}}`);
}

/** A publication as the protocol writes it: its data, and its offset where the channel keeps history. */
function pubJson(pub: q.StoredPublication, ns: Namespace): string {
  return ns.historySize > 0 ? `{"data":${pub.data},"offset":${pub.seq}}` : `{"data":${pub.data}}`;
}

function isExpired(token: string, now: Date): boolean {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && exp * 1000 <= now.getTime();
  } catch {
    return false;
  }
}
