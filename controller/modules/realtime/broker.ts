// The realtime broker at /realtime on the HTTP port (Centrifugo's client protocol v2, JSON; rules
// in docs/realtime.md). A publication is stored with the channel's next offset, then announced:
// in process on a database one instance holds, by NOTIFY (channel and offset only) where several
// instances share it. Each instance answers an announcement by reading the channel's publications
// after the lowest offset its own subscribers hold, in order, so each subscriber gets each
// publication once and in order whichever instance published it.
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
import { ClientSession, pushFrame, type SessionDeps } from './client-session.js';
import { FANOUT_KEEP, NAMESPACES, namespaceOf, isReplyError } from './protocol.js';
import * as q from './queries.js';

export const REALTIME_PATH = '/realtime';
const LISTEN_CHANNEL = 'realtime_publication';
const READ_BATCH = 500;
const PRESENCE_TOUCH_MS = 60_000;
const PRUNE_EVERY = 50;

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
  readonly #subs = new Map<string, Set<ClientSession>>();
  readonly #chains = new Map<string, Promise<void>>();
  readonly #guards = new Map<string, ChannelGuard>();
  readonly #sessions = new Set<ClientSession>();
  /** Channels whose stream row exists (created once, never removed). */
  readonly #knownChannels = new Set<string>();
  /** Channels with a fan-out queued and not started: another announcement adds nothing. */
  readonly #pendingFanOut = new Set<string>();
  readonly #sessionDeps: SessionDeps;
  #listening: DbListening | null = null;
  #touch: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly deps: BrokerDeps,
    private readonly options: BrokerOptions,
  ) {
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 64 * 1024 });
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

  /** Stores the publication with the channel's next offset and announces it. */
  async publish(channel: string, data: unknown): Promise<{ offset: number }> {
    const ns = namespaceOf(channel);
    if (isReplyError(ns)) throw new Error(`cannot publish on ${channel}: ${ns.message}`);
    const db = this.deps.db;
    const now = iso(this.deps.clock.now());
    const text = JSON.stringify(data);
    if (!this.#knownChannels.has(channel)) {
      await q.ensureChannel(db, channel, newId(), now);
      this.#knownChannels.add(channel);
    }
    let seq: number | null = null;
    if (this.deps.caps.writableCtes && this.deps.caps.notifiesAcrossInstances) {
      seq = await q.publishInOneStatement(db, channel, text, now, LISTEN_CHANNEL);
    }
    if (seq === null) {
      seq = await db.transaction().execute(async (trx) => {
        await q.ensureChannel(trx, channel, newId(), now);
        const next = await q.nextOffset(trx, channel);
        await q.insertPublication(trx, channel, next.seq, text, now);
        // Delivered to every LISTENer when (and only if) the transaction commits.
        if (this.deps.caps.notifiesAcrossInstances)
          await q.notify(trx, LISTEN_CHANNEL, `${next.seq} ${channel}`);
        return next.seq;
      });
    }
    if (!this.deps.caps.notifiesAcrossInstances) this.#fanOut(channel);
    // Old publications go now and then, outside the offset's lock.
    const keep = Math.max(ns.historySize, FANOUT_KEEP);
    if (seq > keep && seq % PRUNE_EVERY === 0) await q.pruneHistory(db, channel, seq - keep);
    return { offset: seq };
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
      ws.once('close', () => {
        this.#sessions.delete(session);
        for (const channel of session.channels()) this.#subs.get(channel)?.delete(session);
        q.removePresence(this.deps.db, session.clientId).catch(() => undefined);
      });
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
    const space = payload.indexOf(' ');
    if (space < 0) return;
    const channel = payload.slice(space + 1);
    if (this.#subs.get(channel)?.size) this.#fanOut(channel);
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

  #fanOut(channel: string): void {
    if (this.#pendingFanOut.has(channel)) return;
    this.#pendingFanOut.add(channel);
    this.#serial(channel, async () => {
      // From here on a new announcement queues another pass, which reads what this one missed.
      this.#pendingFanOut.delete(channel);
      for (;;) {
        const subs = [...(this.#subs.get(channel) ?? [])];
        if (subs.length === 0) return;
        // Sockets still waiting for their subscribe reply have no position yet: they are caught up
        // by the pass their reply schedules.
        const from = Math.min(...subs.map((s) => s.offsetOf(channel) ?? Infinity));
        if (!Number.isFinite(from)) return;
        const rows = await q.publicationsAfter(this.deps.db, channel, from, READ_BATCH);
        const ns = namespaceOf(channel);
        if (isReplyError(ns)) return;
        if (rows.length > 0) {
          const frames = new FrameSuffixes(rows.map((row) => pushFrame(channel, row, ns)));
          const seqs = rows.map((row) => row.seq);
          const last = seqs[seqs.length - 1]!;
          for (const s of subs) {
            const at = s.offsetOf(channel);
            if (at === undefined || at >= last) continue;
            // The rows this socket lacks are a suffix of the batch: one frame holds them all.
            s.deliver(channel, last, frames.from(firstAfter(seqs, at)));
          }
        }
        if (rows.length < READ_BATCH) return;
      }
    }).catch((err) => this.deps.logger.warn({ err: String(err), channel }, 'realtime fan-out failed'));
  }

  #makeSessionDeps(): SessionDeps {
    return {
      db: this.deps.db,
      clock: this.deps.clock,
      authenticate: (token) => this.deps.authenticate(token),
      instanceId: () => this.options.instanceId,
      mayRead: async (channel, account) => {
        const guard = this.#guards.get(channel);
        return guard ? guard(channel, account) : true;
      },
      stream: async (channel) => {
        if (!this.#knownChannels.has(channel)) {
          await q.ensureChannel(this.deps.db, channel, newId(), iso(this.deps.clock.now()));
          this.#knownChannels.add(channel);
        }
        return (await q.stream(this.deps.db, channel))!;
      },
      attach: (channel, session) => {
        if (session.closed) return;
        let set = this.#subs.get(channel);
        if (!set) this.#subs.set(channel, (set = new Set()));
        set.add(session);
      },
      caughtUp: (channel) => this.#fanOut(channel),
      detach: (channel, session) => {
        this.#subs.get(channel)?.delete(session);
      },
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
 * The push frames of one fan-out pass, joined from a given row to the last (the protocol allows
 * several objects per frame, newline-separated). Each suffix is built once, however many sockets
 * take it: serialised once per publication, one write per socket per pass.
 */
class FrameSuffixes {
  readonly #joined = new Map<number, Buffer>();
  constructor(private readonly frames: Buffer[]) {}

  from(index: number): Buffer {
    let joined = this.#joined.get(index);
    if (!joined) {
      const parts: Buffer[] = [];
      for (let i = index; i < this.frames.length; i++) {
        if (parts.length > 0) parts.push(NEWLINE);
        parts.push(this.frames[i]!);
      }
      joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      this.#joined.set(index, joined);
    }
    return joined;
  }
}
const NEWLINE = Buffer.from('\n');
