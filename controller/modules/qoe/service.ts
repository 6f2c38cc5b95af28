// Network-quality monitoring (docs/api/qoe.md): telemetry from each NAS's bridge, the latest
// status and congestion, usage from the shared WAN usage store, the five preferences (kept in the
// row the bandwidth programme shares), and usage alerts that only suggest.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { routerDay } from '../usage/index.js';
import { UsageAlerts, type AlertDeps } from './alerts.js';
import { isCongested } from './congestion.js';
import { KickActions, type KickDeps } from './kick-actions.js';
import { nasUsage } from './nas-usage.js';
import { ACCELERATION_MIN_BYTES } from './usage-verdict.js';
import { DailyReports } from './reports.js';
import * as q from './queries.js';
import type { LiveNas } from '../nas/index.js';
import type { AgentPoint, PreferencesBody, TelemetryBody } from './schemas.js';
import type { QoePointsTable } from './tables.js';

const DAY_MS = 86_400_000;
/** A point stamped further ahead of our clock than this is refused (a router clock gone wrong). */
const MAX_AHEAD_MS = 5 * 60_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface TelemetryAnswer {
  accepted: true;
  event: { id: string; observed_at: string };
}

export class QoeService {
  readonly alerts: UsageAlerts;
  readonly reports: DailyReports;
  /** Kicks: the only part of the module that sends a router anything, and only when a manager asks. */
  readonly kicks: KickActions;

  constructor(private readonly deps: AlertDeps & Omit<KickDeps, keyof AlertDeps>) {
    // Alerts and reports are not handed the command path at all.
    const { radius: _radius, commands: _commands, runner: _runner, ...alertDeps } = deps;
    this.alerts = new UsageAlerts(alertDeps);
    this.reports = new DailyReports(alertDeps);
    this.kicks = new KickActions(deps);
  }

  /** A new bridge token for the NAS, replacing any earlier one; only its hash is kept. */
  async issueBridgeToken(clientId: string, nasId: string, allocationId: string): Promise<string> {
    const token = `qbt_${randomBytes(32).toString('base64url')}`;
    await q.saveBridgeToken(this.deps.db, {
      nas_id: nasId,
      client_id: clientId,
      allocation_id: allocationId,
      token_hash: hashToken(token),
      issued_at: iso(this.deps.clock.now()),
    });
    return token;
  }

  /**
   * Records one point of the NAS the token was issued to; the client comes from that NAS. A point
   * already stored (same NAS and instant) answers its first event and changes nothing.
   * @throws AppError QOE_BRIDGE_TOKEN_REQUIRED, QOE_BRIDGE_TOKEN_INVALID, QOE_NAS_MISMATCH, VALIDATION_ERROR.
   */
  async telemetry(token: string | undefined, body: TelemetryBody): Promise<TelemetryAnswer> {
    if (!token) throw new AppError('QOE_BRIDGE_TOKEN_REQUIRED', 'x-vpn-bridge-token is required');
    const issued = await q.findBridgeToken(this.deps.db, hashToken(token));
    const nas = issued ? await this.deps.nas.findLive(issued.client_id, issued.nas_id) : null;
    if (!issued || !nas) throw new AppError('QOE_BRIDGE_TOKEN_INVALID', 'Unknown bridge token');
    if (body.nas_id.toLowerCase() !== nas.id.toLowerCase())
      throw new AppError('QOE_NAS_MISMATCH', 'nas_id is not the NAS of this bridge token');
    return this.#record(issued.client_id, nas, body);
  }

  /**
   * A point an agent sent over its link (agent-points.ts): recorded as `telemetry` records it, for
   * the allocation's live NAS; without one, its WAN counters still feed the usage store.
   * @returns false when the allocation has no live NAS.
   * @throws AppError VALIDATION_ERROR for a point stamped ahead of the server clock.
   */
  async recordAgentPoint(clientId: string, allocationId: string, point: AgentPoint): Promise<boolean> {
    let nas: LiveNas | null = null;
    for (const t of await q.bridgeTokensOfAllocation(this.deps.db, allocationId)) {
      if (t.client_id !== clientId) continue;
      nas = await this.deps.nas.findLive(clientId, t.nas_id);
      if (nas) break;
    }
    if (nas) {
      await this.#record(clientId, nas, { ...point, nas_id: nas.id });
      return true;
    }
    if (point.wan_rx_bytes != null && point.wan_tx_bytes != null)
      await this.deps.usage.ingest({
        clientId,
        allocationId,
        at: new Date(point.observed_at),
        rxBytes: point.wan_rx_bytes,
        txBytes: point.wan_tx_bytes,
      });
    return false;
  }

  async #record(clientId: string, nas: LiveNas, body: TelemetryBody): Promise<TelemetryAnswer> {
    const now = this.deps.clock.now();
    const observed = new Date(body.observed_at);
    if (observed.getTime() > now.getTime() + MAX_AHEAD_MS) {
      const message = 'observed_at is ahead of the server clock';
      throw new AppError('VALIDATION_ERROR', message, { details: [{ field: 'observed_at', message }] });
    }
    const row: QoePointsTable = {
      id: newId(),
      client_id: clientId,
      nas_id: nas.id,
      allocation_id: nas.allocation_id,
      observed_at: iso(observed),
      received_at: iso(now),
      rtt_ms: body.rtt_ms ?? null,
      jitter_ms: body.jitter_ms ?? null,
      packet_loss_pct: body.packet_loss_pct ?? null,
      tx_bps: body.tx_bps ?? null,
      rx_bps: body.rx_bps ?? null,
      wan_rx_bytes: body.wan_rx_bytes ?? null,
      wan_tx_bytes: body.wan_tx_bytes ?? null,
      top_consumers: JSON.stringify(body.top_consumers),
    };
    if (!(await q.insertPoint(this.deps.db, row))) {
      const first = await q.findPointAt(this.deps.db, nas.id, row.observed_at);
      return { accepted: true, event: { id: first?.id ?? row.id, observed_at: row.observed_at } };
    }
    if (row.wan_rx_bytes !== null && row.wan_tx_bytes !== null) {
      const added = await this.deps.usage.ingest({
        clientId,
        allocationId: nas.allocation_id,
        at: observed,
        rxBytes: row.wan_rx_bytes,
        txBytes: row.wan_tx_bytes,
      });
      // The point is recorded whatever the alert check does; the catch-up job retries it.
      if (added && (await this.#alertPossible(clientId, nas.allocation_id, now)))
        await this.alerts.check(clientId, nas.id, nas.allocation_id, now).catch((err: unknown) => {
          this.deps.logger.warn({ nasId: nas.id, err: (err as Error).message }, 'usage alert check failed');
        });
    }
    return { accepted: true, event: { id: row.id, observed_at: row.observed_at } };
  }

  /**
   * False when no alert can be due: under 5 GiB in the last 26 hours, neither today (in any time
   * zone, a day of 25 hours at most) nor the last two hours reach a threshold. One read instead of
   * the check's four, for nearly every point.
   */
  async #alertPossible(clientId: string, allocationId: string, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - 26 * 3_600_000);
    return (await this.deps.usage.bytesSince(clientId, allocationId, since)) >= ACCELERATION_MIN_BYTES;
  }

  /** The latest point of each NAS of the client that sent one, and those congested now. */
  async status(clientId: string) {
    const now = this.deps.clock.now();
    const nas = [];
    const congested: string[] = [];
    for (const n of await this.deps.nas.listLiveNas(clientId)) {
      const s = await this.#latest(clientId, n.id, now);
      if (!s) continue;
      nas.push(s.view);
      if (s.congested) congested.push(n.id);
    }
    return { nas, congested_nas: congested };
  }

  /** Usage of each NAS in its router's day; `date` is the day of the PRIMARY router (else the oldest). */
  async usage(clientId: string) {
    const now = this.deps.clock.now();
    const list = await this.deps.nas.listLiveNas(clientId);
    const primary = list.find((n) => n.role === 'PRIMARY') ?? list[0];
    const zone = primary ? await this.deps.usage.timeZone(primary.allocation_id) : 'UTC';
    const nas = [];
    for (const n of list) {
      const u = await nasUsage(this.deps.usage, clientId, n.allocation_id, now);
      nas.push({
        nas_id: n.id,
        ...u.verdict,
        congested: (await this.#latest(clientId, n.id, now))?.congested ?? false,
      });
    }
    return { date: routerDay(now, zone).day, nas };
  }

  async preferences(clientId: string) {
    const prefs = this.deps.bandwidth.preferences;
    return this.#fiveOf({ ...(await prefs.get(clientId)), ...(await prefs.qoeSwitches(clientId)) });
  }

  async setPreferences(clientId: string, changes: PreferencesBody) {
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    return this.#fiveOf(await this.deps.bandwidth.preferences.setQoe(clientId, defined));
  }

  #fiveOf(p: {
    urgent_push: boolean;
    daily_report_push: boolean;
    usage_alert_push: boolean;
    quiet_start: number | null;
    quiet_end: number | null;
  }) {
    return {
      urgent_push: p.urgent_push,
      daily_report_push: p.daily_report_push,
      usage_alert_push: p.usage_alert_push,
      quiet_start: p.quiet_start,
      quiet_end: p.quiet_end,
    };
  }

  async #latest(clientId: string, nasId: string, now: Date) {
    const p = await q.latestPoint(this.deps.db, clientId, nasId);
    if (!p) return null;
    const at = Date.parse(p.observed_at);
    const baseline = await q.minRtt(this.deps.db, clientId, nasId, iso(new Date(at - DAY_MS)), p.observed_at);
    const num = (v: number | null) => (v === null ? null : Number(v));
    const view = {
      nas_id: nasId,
      observed_at: p.observed_at,
      rtt_ms: num(p.rtt_ms),
      jitter_ms: num(p.jitter_ms),
      packet_loss_pct: num(p.packet_loss_pct),
      tx_bps: num(p.tx_bps),
      rx_bps: num(p.rx_bps),
      wan_rx_bytes: num(p.wan_rx_bytes),
      wan_tx_bytes: num(p.wan_tx_bytes),
      top_consumers: JSON.parse(p.top_consumers) as unknown[],
      rtt_baseline_ms: baseline,
    };
    const congested = isCongested({
      rtt_ms: view.rtt_ms,
      packet_loss_pct: view.packet_loss_pct,
      baseline_rtt_ms: baseline,
      age_ms: now.getTime() - at,
    });
    return { view, congested };
  }
}
