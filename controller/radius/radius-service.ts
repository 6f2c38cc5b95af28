// The RADIUS server core: verifies each packet against its NAS's secret, answers retransmits from
// a cache, dispatches to the authentication or accounting handler and owns the group commit.
// `handle` is transport-free so the agent relay can feed it packets as the UDP listener does.
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import { errorFields, type Logger } from '../logger.js';
import type { TicketAuthService } from '../modules/tickets/index.js';
import { AccessHandler, type AcceptedEvent } from './access-handler.js';
import { AccountingHandler } from './accounting-handler.js';
import { AuthLogReader } from './auth-log-reader.js';
import { bookkeeping } from './bookkeeping.js';
import { ensureDictionaries } from './dictionary.js';
import type { NasDirectory, NasEntry } from './nas-directory.js';
import {
  CODE,
  accountingAuthenticatorValid,
  checkMessageAuthenticator,
  readPacket,
  type PacketHeader,
} from './packet-crypto.js';
import * as q from './queries.js';
import { encodeReply } from './reply-builder.js';
import { RetransmitCache } from './retransmit-cache.js';
import { TicketLookup } from './ticket-lookup.js';
import {
  UdpListener,
  type ListenOptions,
  type PacketKind,
  type PacketSource,
  type RadiusAddresses,
} from './udp-listener.js';
import { WriteBehind } from './write-behind.js';

export interface RadiusServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  tickets: TicketAuthService;
  nas: NasDirectory;
}

export interface RadiusServiceOptions {
  /** Acct-Interim-Interval answered to the NAS, in seconds; a session silent 3 × this long is closed. */
  interimSeconds: number;
  /** Longest wait before the authentication log is written (group commit). */
  flushDelayMs?: number;
  /** Queued log rows that trigger a commit at once. */
  flushRows?: number;
  /** How long a reply is kept to answer a retransmit of its request. */
  retransmitWindowMs?: number;
  /** Drop Access-Requests without Message-Authenticator (RouterOS 6 sends none; 7.15+ does). */
  requireMessageAuthenticator?: boolean;
}

export type AcceptedListener = (event: AcceptedEvent) => void;

/** An accounting Stop, once committed. */
export interface SessionStop {
  clientId: string;
  nasId: string;
  acctSessionId: string;
}

/** An open accounting session as a Disconnect-Request must name it. */
export interface OpenSession {
  acctSessionId: string;
  framedIp: string | null;
  callingStationId: string | null;
}

export class RadiusService {
  readonly #writer: WriteBehind;
  readonly #access: AccessHandler;
  readonly #accounting: AccountingHandler;
  readonly #cache: RetransmitCache;
  readonly #listeners = new Set<AcceptedListener>();
  readonly #stopListeners = new Set<(stop: SessionStop) => void>();
  #listener: UdpListener | null = null;
  #addresses: RadiusAddresses | null = null;
  /** The authentication log's reads for other modules (read as written: no flush first). */
  readonly authLog: AuthLogReader;

  constructor(
    private readonly deps: RadiusServiceDeps,
    private readonly options: RadiusServiceOptions,
  ) {
    ensureDictionaries();
    this.#writer = new WriteBehind(
      deps.db,
      bookkeeping(deps.db, deps.tickets),
      { maxDelayMs: options.flushDelayMs ?? 20, maxRows: options.flushRows ?? 500 },
      deps.logger,
    );
    this.#access = new AccessHandler({
      // A batch of lookups resolved: the first uses it decided are committed in this turn.
      tickets: new TicketLookup(deps.tickets, () => this.#writer.commitSoon()),
      writer: this.#writer,
      clock: deps.clock,
      interimSeconds: options.interimSeconds,
      accepted: (e) => this.#emitAccepted(e),
    });
    this.#accounting = new AccountingHandler(this.#writer, deps.clock, deps.logger, (stop) =>
      this.#emitStopped(stop),
    );
    this.#cache = new RetransmitCache(options.retransmitWindowMs ?? 5_000);
    this.authLog = new AuthLogReader(deps.db);
  }

  /** Called after each accepted authentication (notifications). Returns the unsubscribe function. */
  onAccepted(listener: AcceptedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called after each accounting Stop is committed. Returns the unsubscribe function. */
  onSessionStopped(listener: (stop: SessionStop) => void): () => void {
    this.#stopListeners.add(listener);
    return () => this.#stopListeners.delete(listener);
  }

  /** The newest open session of `username` on the NAS (that Acct-Session-Id when given), or null. */
  async openSession(
    clientId: string,
    nasId: string,
    username: string,
    acctSessionId?: string,
  ): Promise<OpenSession | null> {
    await this.#writer.flush();
    const row = await q.openSessionOf(this.deps.db, clientId, nasId, username, acctSessionId);
    return row
      ? {
          acctSessionId: row.acct_session_id,
          framedIp: row.framed_ip,
          callingStationId: row.calling_station_id,
        }
      : null;
  }

  /** The session's end as accounting recorded it: stopped (with its cause), still open, or unknown. */
  async sessionEnd(
    clientId: string,
    nasId: string,
    acctSessionId: string,
  ): Promise<{ state: 'STOPPED'; cause: string | null } | { state: 'OPEN' | 'UNKNOWN' }> {
    await this.#writer.flush();
    const row = await q.sessionStoppedAt(this.deps.db, clientId, nasId, acctSessionId);
    if (!row) return { state: 'UNKNOWN' };
    return row.stopped_at === null ? { state: 'OPEN' } : { state: 'STOPPED', cause: row.terminate_cause };
  }

  /**
   * One request from a NAS: the signed reply, or null when it is to be dropped unanswered
   * (malformed, unknown NAS, bad authenticator or Message-Authenticator, retransmit still in work).
   * `knownNas` skips the address lookup when the transport already identifies the NAS (the agent
   * relay: the authenticated link names the allocation); the packet must still verify against its secret.
   */
  async handle(
    kind: PacketKind,
    msg: Buffer,
    source: PacketSource,
    knownNas?: NasEntry,
  ): Promise<Buffer | null> {
    const read = readPacket(msg);
    if (!read || !this.#expected(kind, read.header.code)) return null;
    const { header, packet } = read;
    const nas = knownNas ?? (await this.deps.nas.lookup(source.address));
    if (!nas) return null;
    const key = RetransmitCache.key(kind, source.address, source.port, packet);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return Buffer.isBuffer(cached) ? cached : null;
    if (!this.#authentic(header, packet, nas)) {
      this.deps.logger.debug({ nasId: nas.nasId, code: header.code }, 'radius packet failed verification');
      return null;
    }
    this.#cache.set(key, 'pending');
    try {
      const reply = await this.#dispatch(kind, header, packet, nas);
      this.#cache.set(key, reply);
      return reply;
    } catch (err) {
      // Bookkeeping could not be committed: no answer, so the NAS retries this very request.
      this.#cache.delete(key);
      throw err;
    }
  }

  /** Binds the UDP sockets (port 0 picks free ones). */
  async listen(options: ListenOptions): Promise<RadiusAddresses> {
    const listener = new UdpListener((kind, msg, source) => this.handle(kind, msg, source), this.deps.logger);
    this.#addresses = await listener.listen(options);
    this.#listener = listener;
    this.deps.logger.info(
      { auth: this.#addresses.auth, acct: this.#addresses.acct, interim: this.options.interimSeconds },
      'radius listening',
    );
    return this.#addresses;
  }

  get addresses(): RadiusAddresses | null {
    return this.#addresses;
  }

  /** Commits everything queued (authentication log included) and waits for it. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Stops listening, lets the requests in work finish, then commits what is queued. */
  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = null;
    this.#addresses = null;
    if (listener) await listener.close();
    await this.#writer.flush();
  }

  /**
   * Sessions with no report for 3 × the interim interval (the NAS went silent, the Stop was lost)
   * are closed with Lost-Service where they were last heard of; the usage counted so far stays.
   */
  /** Open sessions per NAS of a client (the topology's `sessions_open`). */
  openSessionsByNas(clientId: string, nasIds: readonly string[]): Promise<Map<string, number>> {
    return q.openSessionsByNas(this.deps.db, clientId, nasIds);
  }

  /**
   * Bytes per (user, framed address) of the NAS's sessions heard from since `since` (each session
   * counted whole), for the bandwidth programme's targeted users. Sessions without an address are left out.
   */
  async userVolumesSince(
    clientId: string,
    nasId: string,
    since: string,
  ): Promise<{ username: string; address: string; bytes: number }[]> {
    await this.#writer.flush();
    return q.userVolumesSince(this.deps.db, clientId, nasId, since);
  }

  /**
   * The first real authentication accepted through a NAS since `since`, once it is written (the
   * log is written behind the reply, so it is flushed first).
   */
  async firstAcceptSince(
    clientId: string,
    nasId: string,
    since: string,
  ): Promise<{ username: string; at: string } | null> {
    await this.flush();
    return (await q.firstAcceptSince(this.deps.db, clientId, nasId, since)) ?? null;
  }

  async closeStaleSessions(now: Date): Promise<{ closed: number }> {
    await this.#writer.flush();
    const cutoff = new Date(now.getTime() - 3 * this.options.interimSeconds * 1000).toISOString();
    let closed = 0;
    for (const clientId of await q.tenantsWithStaleSessions(this.deps.db, cutoff)) {
      closed += await q.closeStaleSessions(this.deps.db, clientId, cutoff);
    }
    return { closed };
  }

  #expected(kind: PacketKind, code: number): boolean {
    if (code === CODE.STATUS_SERVER) return true;
    return kind === 'auth' ? code === CODE.ACCESS_REQUEST : code === CODE.ACCOUNTING_REQUEST;
  }

  #authentic(header: PacketHeader, packet: Buffer, nas: NasEntry): boolean {
    const ma = checkMessageAuthenticator(packet, nas.secret);
    if (ma === 'invalid') return false;
    switch (header.code) {
      case CODE.ACCESS_REQUEST:
        return ma === 'valid' || !this.options.requireMessageAuthenticator;
      case CODE.ACCOUNTING_REQUEST:
        return accountingAuthenticatorValid(packet, nas.secret);
      default:
        // Status-Server must carry a Message-Authenticator (RFC 5997 §3).
        return ma === 'valid';
    }
  }

  #dispatch(kind: PacketKind, header: PacketHeader, packet: Buffer, nas: NasEntry): Promise<Buffer> {
    if (header.code === CODE.STATUS_SERVER) {
      const code = kind === 'auth' ? 'Access-Accept' : 'Accounting-Response';
      return Promise.resolve(encodeReply(code, packet, nas.secret, []));
    }
    return kind === 'auth' ? this.#access.handle(packet, nas) : this.#accounting.handle(packet, nas);
  }

  #emitStopped(stop: SessionStop): void {
    for (const listener of this.#stopListeners) {
      try {
        listener(stop);
      } catch (err) {
        this.deps.logger.error(errorFields(err, this.deps.logger), 'radius stop listener failed');
      }
    }
  }

  #emitAccepted(event: AcceptedEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (err) {
        this.deps.logger.error(errorFields(err, this.deps.logger), 'radius accepted listener failed');
      }
    }
  }
}

export type { AcceptedEvent } from './access-handler.js';
