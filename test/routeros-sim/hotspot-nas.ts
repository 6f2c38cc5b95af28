// The router's hotspot as a RADIUS NAS. A login is checked against the local
// /ip/hotspot/user table first (RouterOS does so even with use-radius=yes),
// then, when the server profile uses RADIUS, by a real Access-Request over
// UDP to the /radius entries for service hotspot, in order. An accepted
// login becomes an /ip/hotspot/active entry (plus its dynamic queue) and, with
// radius-accounting, an Accounting Start; traffic is advanced by the test;
// Interim-Updates go out on demand or on timers; the end of a session sends
// Stop with its cause.
import { EventEmitter } from 'node:events';
import type { FaultController } from './faults.js';
import { INVALID_LOGIN, authenticateLocal } from './hotspot-local-auth.js';
import { freeHotspotAddress } from './hotspot-address-pool.js';
import {
  accessRequest,
  accountingRequest,
  flattenAttributes,
  nasPortType,
  replyLimits,
} from './hotspot-radius-attrs.js';
import type { AcctStatus, ReplyLimits, SessionIdentity, TerminateCause } from './hotspot-radius-attrs.js';
import { activeEntryProps, exhaustedBy } from './hotspot-session.js';
import type { HotspotSession } from './hotspot-session.js';
import type { SimRecord } from './menu-table.js';
import type { Prng } from './prng.js';
import { RadiusExchange } from './radius-exchange.js';
import { radiusServersFor } from './radius-servers.js';
import { formatDuration, formatId, parseDuration, parseId } from './ros-format.js';
import type { RouterState } from './router-state.js';

export interface HotspotLoginRequest {
  user: string;
  password: string;
  /** Client MAC (a random one when absent). */
  mac?: string;
  /** Client address (a free one of the server's pool when absent). */
  ip?: string;
  /** Hotspot server name (default: the first enabled one). */
  server?: string;
  /** Force the login page's method; by default http-chap when the profile allows it, else http-pap. */
  loginBy?: 'http-chap' | 'http-pap';
}

export interface HotspotLoginResult {
  ok: boolean;
  /** Why the login failed, as the hotspot login page shows it. */
  reason?: string;
  /** Authenticated by RADIUS (false: by the local user table). */
  radius?: boolean;
  /** /ip/hotspot/active id of the new session. */
  activeId?: string;
  /** Access-Accept / Access-Reject attributes, vendor ones flattened in (octets as hex). */
  attributes?: Record<string, unknown>;
}

export interface TrafficDelta {
  bytesIn?: number;
  bytesOut?: number;
  packetsIn?: number;
  packetsOut?: number;
  /** Seconds of session time that pass. */
  seconds?: number;
}

export interface NasOptions {
  /** Send Interim-Updates on real timers (radius-interim-update, or Acct-Interim-Interval with "received"). */
  interimTimers: boolean;
}

export const RADIUS_NOT_RESPONDING = 'RADIUS server is not responding';
const FIRST_NAS_PORT = 0x80f00000;

/**
 * Emits 'radius' ({ code, ok, tries, status? }) after every exchange, so a
 * test can see accounting that the server never answered.
 */
export class HotspotNas extends EventEmitter {
  private readonly sessions = new Map<number, HotspotSession>();
  private readonly exchange: RadiusExchange;
  private readonly inflight = new Set<Promise<unknown>>();
  private sequence = 0;

  constructor(
    private readonly state: RouterState,
    private readonly faults: FaultController,
    private readonly rng: Prng,
    private readonly options: NasOptions,
  ) {
    super();
    this.exchange = new RadiusExchange(() => faults.radiusLoss(), rng.int(0, 255));
  }

  // ---- login -----------------------------------------------------------------

  async login(req: HotspotLoginRequest): Promise<HotspotLoginResult> {
    const server = this.findServer(req.server);
    if (!server) return { ok: false, reason: 'no such hotspot server' };
    const profile = this.state.table('/ip/hotspot/profile').findBy('name', server.props.profile ?? 'default');
    const pp = profile?.props ?? {};
    const mac = (req.mac ?? this.rng.mac()).toUpperCase();
    const ip = req.ip ?? freeHotspotAddress(this.state, server);
    const loginBy = req.loginBy ?? ((pp['login-by'] ?? '').includes('http-chap') ? 'http-chap' : 'http-pap');
    const identity = this.identity(req.user, mac, ip, server, pp);
    const fail = (reason: string, attributes?: Record<string, unknown>): HotspotLoginResult => {
      this.state.log('hotspot,info,debug', `${req.user} (${ip}): login failed: ${reason}`);
      return { ok: false, reason, ...(attributes ? { attributes } : {}) };
    };

    const local = this.state.table('/ip/hotspot/user').findBy('name', req.user);
    if (local) {
      const outcome = authenticateLocal(this.state, local, {
        password: req.password,
        mac,
        server: identity.server,
        activeSessions: [...this.sessions.values()].filter((s) => s.identity.user === req.user).length,
      });
      if (!outcome.ok) return fail(outcome.reason);
      const session = this.open(identity, loginBy, false, outcome.limits, 0, local.id);
      return { ok: true, radius: false, activeId: formatId(session.activeId) };
    }
    if (pp['use-radius'] !== 'true') return fail(INVALID_LOGIN);

    for (const rs of radiusServersFor(this.state, 'hotspot')) {
      const asked = rs.srcAddress ? { ...identity, nasIpAddress: rs.srcAddress } : identity;
      const attrs = accessRequest(asked, {
        method: loginBy === 'http-chap' ? 'chap' : 'pap',
        password: req.password,
      });
      const result = await this.track(this.exchange.exchange(rs.auth, 'Access-Request', attrs, rs.options));
      this.emit('radius', { code: 'Access-Request', ok: result.ok, tries: result.tries });
      if (!result.ok) continue;
      const attributes = flattenAttributes(result.reply.attributes);
      const limits = replyLimits(result.reply.attributes);
      // an Access-Challenge is not a login either
      if (result.reply.code !== 'Access-Accept')
        return fail(limits.replyMessage ?? INVALID_LOGIN, attributes);
      const interim = interimSeconds(pp['radius-interim-update'], limits);
      const session = this.open(asked, loginBy, true, limits, interim);
      if (pp['radius-accounting'] !== 'false') {
        session.accounting = { ...rs.auth, port: rs.accountingPort };
        await this.account(session, 'Start');
        this.startInterimTimer(session);
      }
      return { ok: true, radius: true, activeId: formatId(session.activeId), attributes };
    }
    return fail(RADIUS_NOT_RESPONDING);
  }

  private findServer(name: string | undefined): SimRecord | undefined {
    const servers = this.state.table('/ip/hotspot').list();
    if (name) return servers.find((s) => s.props.name === name);
    return servers.find((s) => s.props.disabled !== 'true');
  }

  private identity(
    user: string,
    mac: string,
    ip: string,
    server: SimRecord,
    profile: Record<string, string>,
  ): SessionIdentity {
    const nasPort = FIRST_NAS_PORT + ++this.sequence;
    const wan = this.state.table('/ip/address').list()[0]?.props.address ?? '0.0.0.0/0';
    return {
      user,
      mac,
      ip,
      server: server.props.name ?? 'hotspot1',
      interfaceName: server.props.interface ?? '',
      nasPort,
      acctSessionId: nasPort.toString(16),
      nasIdentifier: this.state.table('/system/identity').single().props.name ?? 'MikroTik',
      nasIpAddress: wan.split('/')[0] ?? '0.0.0.0',
      nasPortType: nasPortType(profile['nas-port-type']),
      macFormat: profile['radius-mac-format'] ?? 'XX:XX:XX:XX:XX:XX',
    };
  }

  // ---- sessions ------------------------------------------------------------------

  private open(
    identity: SessionIdentity,
    loginBy: 'http-chap' | 'http-pap',
    radius: boolean,
    limits: ReplyLimits,
    interimSecondsValue: number,
    localUserId?: number,
  ): HotspotSession {
    const active = this.state.table('/ip/hotspot/active');
    const session: HotspotSession = {
      activeId: 0,
      identity,
      radius,
      loginBy,
      limits,
      counters: { uptime: 0, bytesIn: 0, bytesOut: 0, packetsIn: 0, packetsOut: 0 },
      interimSeconds: interimSecondsValue,
      ...(localUserId !== undefined ? { localUserId } : {}),
    };
    const rec = active.insert(activeEntryProps(session, this.keepalive(identity.user)));
    session.activeId = rec.id;
    this.sessions.set(rec.id, session);
    if (limits.rateLimit) {
      const queue = this.state.table('/queue/simple').insert({
        name: `<hotspot-${identity.user}>`,
        target: `${identity.ip}/32`,
        parent: 'none',
        'max-limit': limits.rateLimit.split(' ')[0] ?? limits.rateLimit,
        invalid: 'false',
        dynamic: 'true',
        disabled: 'false',
        comment: '',
      });
      session.queueId = queue.id;
    }
    this.state.log('hotspot,account,info,debug', `${identity.user} (${identity.ip}): logged in`);
    return session;
  }

  private keepalive(user: string): string {
    const rec = this.state.table('/ip/hotspot/user').findBy('name', user);
    const profile = this.state
      .table('/ip/hotspot/user/profile')
      .findBy('name', rec?.props.profile ?? 'default');
    return profile?.props['keepalive-timeout'] ?? '2m';
  }

  /** Finds a session by user name, MAC, client address, Acct-Session-Id or active id (*80). */
  find(who: string): HotspotSession | undefined {
    const id = parseId(who);
    if (id !== undefined) return this.sessions.get(id);
    const upper = who.toUpperCase();
    for (const s of this.sessions.values()) {
      const i = s.identity;
      if (i.user === who || i.mac === upper || i.ip === who || i.acctSessionId === who) return s;
    }
    return undefined;
  }

  /**
   * Ends a session now: the active entry and its queue go away at once,
   * accounting Stop (when due) is sent in the background. The promise
   * settles when the Stop exchange is over.
   */
  terminate(activeId: number, cause: TerminateCause): Promise<void> {
    const active = this.state.table('/ip/hotspot/active');
    const rec = active.get(activeId);
    if (rec) active.delete(rec);
    const session = this.sessions.get(activeId);
    if (!session) return Promise.resolve();
    this.sessions.delete(activeId);
    if (session.timer) clearInterval(session.timer);
    if (session.queueId !== undefined) {
      const q = this.state.table('/queue/simple').get(session.queueId);
      if (q) this.state.table('/queue/simple').delete(q);
    }
    const { user, ip } = session.identity;
    this.state.log('hotspot,account,info,debug', `${user} (${ip}): logged out: ${causeText(cause)}`);
    if (!session.accounting) return Promise.resolve();
    return this.account(session, 'Stop', cause);
  }

  async logout(who: string, cause: TerminateCause = 'User-Request'): Promise<boolean> {
    const s = this.find(who);
    if (!s) return false;
    await this.terminate(s.activeId, cause);
    return true;
  }

  /** Adds traffic and time to a session; ends it (Stop) when a limit is reached. */
  async advanceTraffic(
    who: string,
    delta: TrafficDelta,
  ): Promise<{ found: boolean; ended?: TerminateCause }> {
    const s = this.find(who);
    if (!s) return { found: false };
    const c = s.counters;
    const bytesIn = Math.max(0, delta.bytesIn ?? 0);
    const bytesOut = Math.max(0, delta.bytesOut ?? 0);
    const seconds = Math.max(0, delta.seconds ?? 0);
    const packetsIn = delta.packetsIn ?? Math.ceil(bytesIn / 600);
    const packetsOut = delta.packetsOut ?? Math.ceil(bytesOut / 1200);
    c.bytesIn += bytesIn;
    c.bytesOut += bytesOut;
    c.packetsIn += packetsIn;
    c.packetsOut += packetsOut;
    c.uptime += seconds;
    this.addToLocalUser(s, { bytesIn, bytesOut, packetsIn, packetsOut, seconds });
    const active = this.state.table('/ip/hotspot/active');
    const rec = active.get(s.activeId);
    if (rec) active.update(rec, activeEntryProps(s, rec.props['keepalive-timeout'] ?? '2m'));
    const cause = exhaustedBy(s);
    if (cause) {
      await this.terminate(s.activeId, cause);
      return { found: true, ended: cause };
    }
    return { found: true };
  }

  /** RouterOS keeps per-user totals for local users: the session's traffic adds to them. */
  private addToLocalUser(
    s: HotspotSession,
    d: { bytesIn: number; bytesOut: number; packetsIn: number; packetsOut: number; seconds: number },
  ): void {
    if (s.localUserId === undefined) return;
    const users = this.state.table('/ip/hotspot/user');
    const rec = users.get(s.localUserId);
    if (!rec) return;
    const add = (key: string, n: number): string => String(Number(rec.props[key] ?? '0') + n);
    users.update(rec, {
      uptime: formatDuration((parseDuration(rec.props.uptime ?? '0s') ?? 0) + d.seconds),
      'bytes-in': add('bytes-in', d.bytesIn),
      'bytes-out': add('bytes-out', d.bytesOut),
      'packets-in': add('packets-in', d.packetsIn),
      'packets-out': add('packets-out', d.packetsOut),
    });
  }

  /** Sends an Interim-Update for every accounted session now; resolves with how many went out. */
  async sendInterimUpdates(): Promise<number> {
    const due = [...this.sessions.values()].filter((s) => s.accounting);
    await Promise.all(due.map((s) => this.account(s, 'Interim-Update')));
    return due.length;
  }

  private startInterimTimer(s: HotspotSession): void {
    if (!this.options.interimTimers || s.interimSeconds <= 0) return;
    s.timer = setInterval(() => void this.account(s, 'Interim-Update'), s.interimSeconds * 1000);
    s.timer.unref();
  }

  /** Changes a session's limits (CoA). */
  updateLimits(s: HotspotSession, limits: ReplyLimits): void {
    Object.assign(s.limits, limits);
    const active = this.state.table('/ip/hotspot/active');
    const rec = active.get(s.activeId);
    if (rec) active.update(rec, activeEntryProps(s, rec.props['keepalive-timeout'] ?? '2m'));
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  // ---- accounting ------------------------------------------------------------------

  private async account(s: HotspotSession, status: AcctStatus, cause?: TerminateCause): Promise<void> {
    const target = s.accounting;
    if (!target) return;
    const attrs = accountingRequest(s.identity, status, s.counters, {
      ...(s.limits.classAttr ? { classAttr: s.limits.classAttr } : {}),
      ...(cause ? { cause } : {}),
      now: this.state.identity.now(),
    });
    const result = await this.track(
      this.exchange.exchange(target, 'Accounting-Request', attrs, {
        messageAuthenticator: false,
        requireReplyMessageAuthenticator: false,
      }),
    );
    this.emit('radius', { code: 'Accounting-Request', status, ok: result.ok, tries: result.tries });
    if (!result.ok)
      this.state.log('radius,warning', `accounting ${status} for ${s.identity.user}: no response`);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p)).catch(() => undefined);
    return p;
  }

  /** Resolves once every RADIUS exchange in progress (Stop after a kick, interim...) is over. */
  async flush(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  close(): void {
    for (const s of this.sessions.values()) if (s.timer) clearInterval(s.timer);
    this.exchange.close();
  }
}

function interimSeconds(setting: string | undefined, limits: ReplyLimits): number {
  if (!setting || setting === 'received') return limits.interimInterval ?? 0;
  return parseDuration(setting) ?? 0;
}

const CAUSE_TEXT: Readonly<Record<TerminateCause, string>> = {
  'User-Request': 'user request',
  'Lost-Carrier': 'keepalive timeout',
  'Idle-Timeout': 'idle timeout',
  'Session-Timeout': 'session timeout',
  'Admin-Reset': 'admin logout',
  'NAS-Request': 'traffic limit reached',
  'NAS-Reboot': 'router reboot',
};

function causeText(cause: TerminateCause): string {
  return CAUSE_TEXT[cause];
}
