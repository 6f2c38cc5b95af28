// Network-quality monitoring (docs/api/qoe.md): telemetry from each NAS's bridge, the latest
// status and congestion, usage from the shared WAN usage store, the five preferences (kept in the
// row the bandwidth programme shares), and usage alerts that only suggest.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { routerDay } from '../usage/index.js';
import { UsageAlerts, type AlertDeps } from './alerts.js';
import { isCongested } from './congestion.js';
import { KickActions, type KickDeps } from './kick-actions.js';
import { nasUsage } from './nas-usage.js';
import { PointIngestion, type TelemetryAnswer } from './point-ingestion.js';
import { DailyReports } from './reports.js';
import * as q from './queries.js';
import type { AgentPoint, PreferencesBody, TelemetryBody } from './schemas.js';

const DAY_MS = 86_400_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class QoeService {
  readonly alerts: UsageAlerts;
  readonly reports: DailyReports;
  /** Kicks: the only part of the module that sends a router anything, and only when a manager asks. */
  readonly kicks: KickActions;
  /** Where telemetry points are stored, in batches. */
  readonly ingestion: PointIngestion;

  constructor(
    private readonly deps: AlertDeps &
      Omit<KickDeps, keyof AlertDeps> & {
        /** Telemetry batches that may commit at once (point-ingestion.ts). */
        concurrentBatches?: number;
      },
  ) {
    // Alerts and reports are not handed the command path at all.
    const {
      radius: _radius,
      commands: _commands,
      runner: _runner,
      concurrentBatches = 1,
      ...alertDeps
    } = deps;
    this.alerts = new UsageAlerts(alertDeps);
    this.reports = new DailyReports(alertDeps);
    this.kicks = new KickActions(deps);
    this.ingestion = new PointIngestion({
      ...alertDeps,
      concurrentBatches,
      checkAlerts: (clientId, nasId, allocationId, now) =>
        this.alerts.check(clientId, nasId, allocationId, now),
    });
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
   * already stored (same NAS and instant) answers its first event and changes nothing. Points
   * arriving together are stored together (point-ingestion.ts).
   * @throws AppError QOE_BRIDGE_TOKEN_REQUIRED, QOE_BRIDGE_TOKEN_INVALID, QOE_NAS_MISMATCH, VALIDATION_ERROR.
   */
  async telemetry(token: string | undefined, body: TelemetryBody): Promise<TelemetryAnswer> {
    if (!token) throw new AppError('QOE_BRIDGE_TOKEN_REQUIRED', 'x-vpn-bridge-token is required');
    const { nas_id: nasId, ...point } = body;
    const answer = await this.ingestion.submit({ kind: 'token', tokenHash: hashToken(token), nasId }, point);
    // A token source always answers an event or throws.
    return answer!;
  }

  /**
   * A point an agent sent over its link (agent-points.ts): recorded as `telemetry` records it, for
   * the allocation's live NAS; without one, its WAN counters still feed the usage store.
   * @returns false when the allocation has no live NAS.
   * @throws AppError VALIDATION_ERROR for a point stamped ahead of the server clock.
   */
  async recordAgentPoint(clientId: string, allocationId: string, point: AgentPoint): Promise<boolean> {
    return (await this.ingestion.submit({ kind: 'agent', clientId, allocationId }, point)) !== null;
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
