// The realtime broker at /realtime on the HTTP port (Centrifugo's client protocol v2, JSON; rules
// in docs/realtime.md). A publication is stored with the channel's next offset, then announced:
// in process on a database one instance holds, by NOTIFY where several instances share it (ids
// only: the offset and channel). Each instance keeps the latest publications of a channel it
// knows without a gap (channel-tail.ts) and pushes to its subscribers from there, one frame built
// once per position; a subscriber behind what the tail proves (another instance's publication,
// whose data is in the database only, a gap, a lost connection) is caught up by reading the
// channel's publications after the lowest offset such subscribers hold, in order. So each
// subscriber gets each publication once and in order whichever instance published it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { DbListen, DbListening } from '../../db/db-listener.js';
import type { AccountPrincipal } from '../../http/principal.js';
import type { Logger } from '../../logger.js';
import { decodeJwt } from 'jose';
import { announcementAfterOffset, parseAnnouncement } from './announcement.js';
import { ChannelTail, TAIL_SIZE } from './channel-tail.js';
import { ClientSession, pushFrame, type SessionDeps, type Subscription } from './client-session.js';
import { prebuildTextFrame, type PrebuiltFrame } from './prebuilt-frame.js';
import { PresenceWriter } from './presence-writer.js';
import { StoreQueue } from './store-queue.js';
import { FANOUT_KEEP, NAMESPACES, namespaceOf, isReplyError, type Namespace } from './protocol.js';
import * as q from './queries.js';

export const REALTIME_PATH = '/realtime';
const LISTEN_CHANNEL = 'realtime_publication';
const READ_BATCH = 500;
const PRESENCE_TOUCH_MS = 60_000;
const PRUNE_EVERY = 50;
/** Publications stored by one statement at most. */
const STORE_BATCH = 100;
/**
 * How long a token's account stays trusted without being read again: a reconnecting crowd (one
 * account on many devices, a restarted instance) reads each account once, and an account
 * disabled meanwhile is refused within this delay.
 */
const ACCOUNT_CACHE_MS = 5_000;
const ACCOUNT_CACHE_MAX = 10_000;

/** May this account subscribe to (and read presence and history of) this channel? */
export type ChannelGuard = (channel: string, account: AccountPrincipal) => Promise<boolean>;

export interface BrokerOptions {
  instanceId: string;
  /** Browser origins admitted (lowercase, no trailing slash); `*` admits any. */
  allowedOrigins: readonly string[];
  /** Seconds between server pings (the connect reply tells the client). */
  pingSeconds?: number;
  maxPayload?: number;
}

export interface BrokerDeps {
  db: Db;
  caps: DialectCapabilities;
  clock: Clock;
  logger: Logger;
  listen?: DbListen;
  authenticate: (token: string) => Promise<AccountPrincipal | null>;
}

export class RealtimeBroker {
  readonly #wss: WebSocketServer;
  readonly #subs = new Map<string, Set<Subscription>>();
  /** Per channel, the latest publications known without a gap. */
  readonly #tails = new Map<string, ChannelTail>();
  /** Channel epochs (fixed when the channel's stream row is created). */
  readonly #epochs = new Map<string, string>();
  readonly #accounts = new Map<string, { account: Promise<AccountPrincipal | null>; until: number }>();
  readonly #presence: PresenceWriter;
  readonly #chains = new Map<string, Promise<void>>();
  readonly #guards = new Map<string, ChannelGuard>();
  readonly #sessions = new Set<ClientSession>();
  /** Channels whose stream row exists (created once, never removed). */
  readonly #knownChannels = new Set<string>();
  /** Channels with a fan-out queued and not started: another announcement adds nothing. */
  readonly #pendingFanOut = new Set<string>();
  /** Channels whose tail grew and whose subscribers are pushed at the next turn. */
  readonly #deliveryDue = new Set<string>();
  /**
   * Channels with a store statement of this instance under way (several instances): their
   * announcements wait for it, since it commits right after those it waited behind, and its own
   * come back before it returns as often as after.
   */
  readonly #storing = new Set<string>();
  /** Offsets announced on a channel while held by `#storing`, in the order heard. */
  readonly #held = new Map<string, number[]>();
  /**
   * This instance's stored publications (by channel, then offset) whose announcement has not come
   * back yet: pushed from here instead of read back from the database.
   */
  readonly #own = new Map<string, Map<number, string>>();
  /** Per channel, publications waiting for (or in) their store statement. */
  readonly #storeQueues = new Map<string, StoreQueue<string, number>>();
  readonly #sessionDeps: SessionDeps;
  #listening: DbListening | null = null;
  #touch: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly deps: BrokerDeps,
    private readonly options: BrokerOptions,
  ) {
    // No per-message deflate: a publication is framed once for every socket (prebuilt-frame.ts).
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload ?? 64 * 1024,
      perMessageDeflate: false,
    });
    this.#presence = new PresenceWriter(deps.db, (err) =>
      deps.logger.warn({ err: String(err) }, 'realtime presence write failed'),
    );
    this.#sessionDeps = this.#makeSessionDeps();
  }

  /** Starts listening for other instances' announcements and clears this instance's old presence. */
  async start(): Promise<void> {
    await q.dropInstance(this.deps.db, this.options.instanceId);
    if (this.deps.caps.notifiesAcrossInstances && this.deps.listen) {
      this.#listening = await this.deps.listen(LISTEN_CHANNEL, {
        onPayload: (payload) => this.#onAnnounce(payload),
        // Announcements sent while the connection was down are lost: read every channel again.
        onReconnect: () => {
          this.#tails.clear();
          this.#own.clear();
          for (const channel of this.#subs.keys()) this.#fanOut(channel);
        },
      });
    }
    this.#touch = setInterval(() => {
      q.touchInstance(this.deps.db, this.options.instanceId, iso(this.deps.clock.now())).catch(
        () => undefined,
      );
    }, PRESENCE_TOUCH_MS).unref();
  }

  /** A channel (exact name) only some accounts may read; without a guard any account may. */
  guard(channel: string, guard: ChannelGuard): void {
    this.#guards.set(channel, guard);
  }

  /**
   * Stores the publication with the channel's next offset and announces it. Publications of a
   * channel asked for together, or while its previous store runs, are stored by one statement,
   * with consecutive offsets in the order asked (store-queue.ts).
   */
  async publish(channel: string, data: unknown): Promise<{ offset: number }> {
    const ns = namespaceOf(channel);
    if (isReplyError(ns)) throw new Error(`cannot publish on ${channel}: ${ns.message}`);
    const text = JSON.stringify(data);
    // Queued at once (the channel's row is made by the store when missing): offsets follow the
    // order of the calls.
    let queue = this.#storeQueues.get(channel);
    if (!queue) {
      const created = new StoreQueue<string, number>(
        (texts) => this.#store(channel, ns, texts),
        STORE_BATCH,
        () => {
          if (this.#storeQueues.get(channel) === created) this.#storeQueues.delete(channel);
        },
      );
      this.#storeQueues.set(channel, (queue = created));
    }
    return { offset: await queue.add(text) };
  }

  /** Stores publications with the channel's next offsets (in order) and announces them. */
  async #store(channel: string, ns: Namespace, texts: string[]): Promise<number[]> {
    const db = this.deps.db;
    const now = iso(this.deps.clock.now());
    const announced = announcementAfterOffset(channel);
    const notifying = this.deps.caps.notifiesAcrossInstances;
    // Announcements of the channel heard meanwhile wait for the answer: other instances'
    // publications committed while this statement waited for the channel row go out with this
    // one's, which follow at once (one frame per socket, not two), and this one's own find their
    // data kept.
    if (notifying) this.#storing.add(channel);
    let first: number | null = null;
    try {
      if (this.deps.caps.writableCtes && notifying)
        first = await q.publishInOneStatement(db, channel, texts, now, LISTEN_CHANNEL, announced);
      first ??= await db.transaction().execute(async (trx) => {
        if (!this.#knownChannels.has(channel)) await q.ensureChannel(trx, channel, newId(), now);
        const from = (await q.takeOffsets(trx, channel, texts.length)) - texts.length + 1;
        await q.insertPublications(trx, channel, from, texts, now);
        // Delivered to every LISTENer when (and only if) the transaction commits.
        if (notifying)
          for (let i = 0; i < texts.length; i++)
            await q.notify(trx, LISTEN_CHANNEL, `${from + i} ${announced}`);
        return from;
      });
      if (notifying) this.#keepOwn(channel, first, texts);
    } finally {
      if (notifying) {
        this.#storing.delete(channel);
        const held = this.#held.get(channel);
        this.#held.delete(channel);
        for (const seq of held ?? []) this.#accept(channel, seq, this.#takeOwn(channel, seq));
      }
    }
    this.#knownChannels.add(channel);
    const seqs = texts.map((_, i) => first + i);
    // Where instances are told by NOTIFY, this one is too (in commit order, so in offset order).
    if (!notifying) texts.forEach((text, i) => this.#accept(channel, seqs[i]!, text));
    // Old publications go now and then, outside the offset's lock; the publications are stored
    // whether or not this succeeds.
    const last = seqs[seqs.length - 1]!;
    const keep = Math.max(ns.historySize, FANOUT_KEEP);
    if (last > keep && Math.floor(last / PRUNE_EVERY) > Math.floor((first - 1) / PRUNE_EVERY)) {
      await q
        .pruneHistory(db, channel, last - keep)
        .catch((err) =>
          this.deps.logger.warn({ err: String(err), channel }, 'realtime history prune failed'),
        );
    }
    return seqs;
  }

  /** Takes an upgrade aimed at /realtime (true), refusing a browser whose Origin is not admitted. */
  readonly handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== REALTIME_PATH) return false;
    if (this.#closed) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return true;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.#originAllowed(origin)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return true;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new ClientSession(ws, this.#sessionDeps, this.options.pingSeconds ?? 25);
      this.#sessions.add(session);
      ws.once('close', () => this.#sessions.delete(session));
    });
    return true;
  };

  /** Closes every socket (the clients reconnect elsewhere) and stops listening. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#touch);
    for (const session of this.#sessions) session.shutdown();
    // A peer that does not answer the close frame within a second is cut (the server's close
    // waits for every socket).
    for (let waited = 0; this.#sessions.size > 0 && waited < 1000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    for (const ws of this.#wss.clients) ws.terminate();
    await this.#listening?.close();
    await Promise.allSettled([...this.#chains.values()]);
    // Sockets closed last may still queue removals: this instance's rows all go below instead.
    await this.#presence.stop();
    await q.dropInstance(this.deps.db, this.options.instanceId).catch(() => undefined);
  }

  /** Presence rows not renewed for 5 minutes (their instance stopped without closing them). */
  async pruneStalePresence(now: Date): Promise<{ pruned: number }> {
    const before = iso(new Date(now.getTime() - 5 * PRESENCE_TOUCH_MS));
    return { pruned: await q.pruneStalePresence(this.deps.db, before) };
  }

  /** Connected sockets on this instance (for the bench and tests). */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  #originAllowed(origin: string): boolean {
    const o = origin.trim().replace(/\/+$/, '').toLowerCase();
    return this.options.allowedOrigins.includes('*') || this.options.allowedOrigins.includes(o);
  }

  #onAnnounce(payload: string): void {
    const a = parseAnnouncement(payload);
    if (!a) return;
    if (!this.#storing.has(a.channel)) return this.#accept(a.channel, a.seq, this.#takeOwn(a.channel, a.seq));
    const held = this.#held.get(a.channel);
    if (held) held.push(a.seq);
    else this.#held.set(a.channel, [a.seq]);
  }

  /** This instance's publications just stored from offset `first`, until they are announced. */
  #keepOwn(channel: string, first: number, texts: readonly string[]): void {
    let own = this.#own.get(channel);
    if (!own) this.#own.set(channel, (own = new Map()));
    texts.forEach((text, i) => own.set(first + i, text));
    // Announcements that never come back (a notification lost with the listening connection, a
    // reconnect clears the rest): the oldest go, and would be read from the database.
    for (const seq of own.keys()) {
      if (own.size <= TAIL_SIZE) break;
      own.delete(seq);
    }
  }

  #takeOwn(channel: string, seq: number): string | undefined {
    const own = this.#own.get(channel);
    const text = own?.get(seq);
    if (text === undefined) return undefined;
    own!.delete(seq);
    if (own!.size === 0) this.#own.delete(channel);
    return text;
  }

  /**
   * A stored publication (data undefined: another instance's, held by the database only): into
   * the channel's tail, then to every subscriber the tail can serve; the others are read from the
   * database.
   */
  #accept(channel: string, seq: number, data: string | undefined): void {
    const ns = namespaceOf(channel);
    if (isReplyError(ns)) return;
    const tail = this.#tails.get(channel);
    if (data === undefined) {
      // Known to exist, not held: whoever is behind it is read from the database.
      if (!tail || seq > tail.top) this.#tails.set(channel, new ChannelTail(seq));
    } else {
      const into = tail ?? new ChannelTail(seq - 1);
      this.#tails.set(channel, into);
      into.offer(seq, pushFrame(channel, { seq, data }, ns));
    }
    this.#deliverSoon(channel);
  }

  /** Pushed once this turn's announcements are in: a burst goes out as one frame per socket. */
  #deliverSoon(channel: string): void {
    if (this.#deliveryDue.has(channel)) return;
    this.#deliveryDue.add(channel);
    setImmediate(() => {
      this.#deliveryDue.delete(channel);
      this.#deliverTail(channel);
    });
  }

  /** Pushes to every subscriber the tail can serve; the others are read from the database. */
  #deliverTail(channel: string): void {
    const subs = this.#subs.get(channel);
    const tail = this.#tails.get(channel);
    if (!subs || subs.size === 0 || !tail) return;
    let behind = false;
    const top = tail.top;
    // Subscribers mostly share one position: its frame is looked up once for the run of them.
    let lastAt: number | undefined;
    let message: PrebuiltFrame | null = null;
    for (const sub of subs) {
      const at = sub.offset;
      if (at === undefined || at >= top) continue;
      if (at !== lastAt) {
        lastAt = at;
        message = tail.frameAfter(at);
      }
      if (message) sub.deliver(top, message);
      else behind = true;
    }
    if (behind) this.#fanOut(channel);
  }

  /** A subscriber that has just got its position: from the tail, else from the database. */
  #catchUp(channel: string, sub: Subscription): void {
    const at = sub.offset;
    if (at === undefined) return;
    const tail = this.#tails.get(channel);
    if (tail && at >= tail.top) return;
    const message = tail?.frameAfter(at);
    if (message) sub.deliver(tail!.top, message);
    else this.#fanOut(channel);
  }

  /** Cached for a few seconds (never past the token's expiry); concurrent connects share one read. */
  #authenticate(token: string): Promise<AccountPrincipal | null> {
    const now = this.deps.clock.now().getTime();
    const cached = this.#accounts.get(token);
    if (cached && cached.until > now) return cached.account;
    if (this.#accounts.size >= ACCOUNT_CACHE_MAX) this.#accounts.clear();
    const account = this.deps.authenticate(token);
    let until = now + ACCOUNT_CACHE_MS;
    try {
      const { exp } = decodeJwt(token);
      if (typeof exp === 'number') until = Math.min(until, exp * 1000);
    } catch {
      until = now;
    }
    const entry = { account, until };
    this.#accounts.set(token, entry);
    // Only an admitted account is remembered: a refusal is asked again next time.
    account.then(
      (a) => {
        if (!a && this.#accounts.get(token) === entry) this.#accounts.delete(token);
      },
      () => {
        if (this.#accounts.get(token) === entry) this.#accounts.delete(token);
      },
    );
    return account;
  }

  /** Runs `task` after every earlier task of the channel (subscribes and fan-outs alike). */
  #serial<T>(channel: string, task: () => Promise<T>): Promise<T> {
    const before = this.#chains.get(channel) ?? Promise.resolve();
    const run = before.then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#chains.set(channel, settled);
    void settled.then(() => {
      if (this.#chains.get(channel) === settled) this.#chains.delete(channel);
    });
    return run;
  }

  /** Reads the channel after the lowest offset of its subscribers and pushes what each lacks. */
  #fanOut(channel: string): void {
    if (this.#pendingFanOut.has(channel)) return;
    this.#pendingFanOut.add(channel);
    this.#serial(channel, async () => {
      // From here on a new announcement queues another pass, which reads what this one missed.
      this.#pendingFanOut.delete(channel);
      const ns = namespaceOf(channel);
      if (isReplyError(ns)) return;
      for (;;) {
        const subs = [...(this.#subs.get(channel) ?? [])];
        if (subs.length === 0) return;
        // Sockets still waiting for their subscribe reply have no position yet: they are caught up
        // by the pass their reply schedules.
        let from = Infinity;
        for (const s of subs) if (s.offset !== undefined && s.offset < from) from = s.offset;
        if (!Number.isFinite(from)) return;
        const rows = await q.publicationsAfter(this.deps.db, channel, from, READ_BATCH);
        // What was read is stored and gapless from `from`: the tail may take it.
        let tail = this.#tails.get(channel);
        if (!tail) this.#tails.set(channel, (tail = new ChannelTail(from)));
        const pushes = rows.map((row) => pushFrame(channel, row, ns));
        rows.forEach((row, i) => tail!.offer(row.seq, pushes[i]!));
        if (rows.length > 0) {
          const frames = new FrameSuffixes(pushes);
          const seqs = rows.map((row) => row.seq);
          const last = seqs[seqs.length - 1]!;
          for (const s of subs) {
            const at = s.offset;
            if (at === undefined || at >= last) continue;
            // The rows this socket lacks are a suffix of the batch: one frame holds them all.
            s.deliver(last, frames.from(firstAfter(seqs, at)));
          }
        }
        if (rows.length < READ_BATCH) return;
      }
    }).catch((err) => this.deps.logger.warn({ err: String(err), channel }, 'realtime fan-out failed'));
  }

  async #ensureChannel(channel: string): Promise<void> {
    if (this.#knownChannels.has(channel)) return;
    await q.ensureChannel(this.deps.db, channel, newId(), iso(this.deps.clock.now()));
    this.#knownChannels.add(channel);
  }

  #makeSessionDeps(): SessionDeps {
    return {
      db: this.deps.db,
      clock: this.deps.clock,
      authenticate: (token) => this.#authenticate(token),
      instanceId: () => this.options.instanceId,
      mayRead: async (channel, account) => {
        const guard = this.#guards.get(channel);
        return guard ? guard(channel, account) : true;
      },
      stream: async (channel) => {
        await this.#ensureChannel(channel);
        const stream = (await q.stream(this.deps.db, channel))!;
        this.#epochs.set(channel, stream.epoch);
        return stream;
      },
      position: async (channel) => {
        // The tail's top is stored (it came from a commit); announcements after it follow.
        const tail = this.#tails.get(channel);
        const epoch = this.#epochs.get(channel);
        if (tail && epoch !== undefined) return { epoch, top: tail.top };
        await this.#ensureChannel(channel);
        const stream = (await q.stream(this.deps.db, channel))!;
        this.#epochs.set(channel, stream.epoch);
        // Everything up to this top is stored: the announcements that follow extend it.
        if (!this.#tails.has(channel)) this.#tails.set(channel, new ChannelTail(stream.top));
        return stream;
      },
      attach: (channel, sub) => {
        let set = this.#subs.get(channel);
        if (!set) this.#subs.set(channel, (set = new Set()));
        set.add(sub);
      },
      caughtUp: (channel, sub) => this.#catchUp(channel, sub),
      detach: (channel, sub) => {
        this.#subs.get(channel)?.delete(sub);
      },
      addPresence: (row) => this.#presence.add(row),
      removePresence: (clientId, channel) => this.#presence.remove(clientId, channel),
      flushPresence: () => this.#presence.flush(),
    };
  }
}

export { NAMESPACES };

/** Index of the first offset above `at` in ascending `seqs`. */
function firstAfter(seqs: number[], at: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The pushes of one fan-out pass, joined from a given row to the last (the protocol allows
 * several objects per frame, newline-separated) and framed. Each suffix is built once, however
 * many sockets take it: serialised once per publication, one write per socket per pass.
 */
class FrameSuffixes {
  readonly #joined = new Map<number, PrebuiltFrame>();
  constructor(private readonly pushes: Buffer[]) {}

  from(index: number): PrebuiltFrame {
    let joined = this.#joined.get(index);
    if (!joined) {
      const parts: Buffer[] = [];
      for (let i = index; i < this.pushes.length; i++) {
        if (parts.length > 0) parts.push(NEWLINE);
        parts.push(this.pushes[i]!);
      }
      joined = prebuildTextFrame(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      this.#joined.set(index, joined);
    }
    return joined;
  }
}
const NEWLINE = Buffer.from('\n');
