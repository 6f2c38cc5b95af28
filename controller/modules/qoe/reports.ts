// The daily report (docs/api/qoe.md, "Daily report"): at 23:59 of the client's PRIMARY router day,
// one per client and date whatever the replays or instances (the qoe_reports key). It only reads:
// usage per NAS, RTT, loss, congestion, top consumers and the day's alerts. `daily_report_push`
// false keeps the report and sends nothing; a push inside the quiet hours waits for their end.
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { addDays, routerDay } from '../usage/index.js';
import type { AlertDeps } from './alerts.js';
import { isCongested } from './congestion.js';
import * as q from './queries.js';
import { GB } from './usage-verdict.js';

const HOUR_MS = 3_600_000;
const PAGE = 500;
/** The report is made from 23:59 of the router day. */
const REPORT_AT_HOURS = 23 + 59 / 60;
const TOP = 5;

const round1 = (n: number) => Math.round(n * 10) / 10;
const mean = (xs: number[]) => (xs.length === 0 ? null : round1(xs.reduce((a, b) => a + b, 0) / xs.length));

// The notifications module takes a UTC window: from now until the router's local quiet_end.
function quietWindowUtc(now: Date, localHours: number, quietEnd: number) {
  const hoursLeft = (quietEnd - localHours + 24) % 24 || 24;
  const end = new Date(now.getTime() + hoursLeft * HOUR_MS);
  const hhmm = (d: Date) =>
    `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return { start: hhmm(now), end: hhmm(end) };
}

function inQuiet(hour: number, start: number | null, end: number | null): boolean {
  if (start === null || end === null || start === end) return false;
  return start < end ? hour >= start && hour < end : hour >= start || hour < end;
}

interface Consumer {
  username: string;
  ip: string;
  rx_bps: number;
}

/** One NAS in a report. */
interface NasDay {
  nas_id: string;
  name: string;
  daily_gb: number;
  rtt_ms_avg: number | null;
  packet_loss_pct_avg: number | null;
  rtt_baseline_ms: number | null;
  points: number;
  congested_points: number;
  top_consumers: Consumer[];
}

export class DailyReports {
  constructor(private readonly deps: AlertDeps) {}

  /** The report job's pass: each client whose PRIMARY router day is at 23:59 gets its report. */
  async run(now: Date): Promise<{ clients: number; created: number }> {
    let after = '';
    let clients = 0;
    let created = 0;
    for (;;) {
      const page = await q.listReportClients(this.deps.db, after, PAGE);
      for (const { client_id } of page) {
        clients++;
        try {
          if (await this.forClient(client_id, now)) created++;
        } catch (err) {
          this.deps.logger.warn({ clientId: client_id, err: (err as Error).message }, 'daily report failed');
        }
      }
      if (page.length < PAGE) return { clients, created };
      after = page[page.length - 1]!.client_id;
    }
  }

  /** Makes the client's report when its day is at 23:59 (or, in the next hour, one that was missed). */
  async forClient(clientId: string, now: Date): Promise<boolean> {
    const list = await this.deps.nas.listLiveNas(clientId);
    const primary = list.find((n) => n.role === 'PRIMARY') ?? list[0];
    if (!primary) return false;
    const zone = await this.deps.usage.timeZone(primary.allocation_id);
    const local = routerDay(now, zone);
    const startOfToday = now.getTime() - local.hoursIntoDay * HOUR_MS;
    let date: string;
    let from: number;
    if (local.hoursIntoDay >= REPORT_AT_HOURS) {
      date = local.day;
      from = startOfToday;
    } else if (local.hoursIntoDay < 1) {
      // A controller that was down at 23:59 makes yesterday's in the first hour of the day.
      date = addDays(local.day, -1);
      from = startOfToday - 24 * HOUR_MS;
    } else return false;
    if (await q.findReport(this.deps.db, clientId, date)) return false;
    const to = Math.min(from + 24 * HOUR_MS, now.getTime());
    const nas: NasDay[] = [];
    for (const n of list) {
      const points = await q.pointsBetween(
        this.deps.db,
        clientId,
        n.id,
        iso(new Date(from)),
        iso(new Date(to)),
      );
      const rtts = points.flatMap((p) => (p.rtt_ms === null ? [] : [Number(p.rtt_ms)]));
      const baseline = rtts.length ? Math.min(...rtts) : null;
      const congestedPoints = points.filter((p) =>
        isCongested({
          rtt_ms: p.rtt_ms === null ? null : Number(p.rtt_ms),
          packet_loss_pct: p.packet_loss_pct === null ? null : Number(p.packet_loss_pct),
          baseline_rtt_ms: baseline,
          age_ms: 0,
        }),
      ).length;
      const peaks = new Map<string, Consumer>();
      for (const p of points)
        for (const c of JSON.parse(p.top_consumers) as Consumer[]) {
          const seen = peaks.get(c.username);
          if (!seen || c.rx_bps > seen.rx_bps) peaks.set(c.username, c);
        }
      const days = await this.deps.usage.dailyTotals(clientId, n.allocation_id, date, date);
      nas.push({
        nas_id: n.id,
        name: n.shortname,
        daily_gb: days.length ? Math.round((days[0]!.bytes / GB) * 1000) / 1000 : 0,
        rtt_ms_avg: mean(rtts),
        packet_loss_pct_avg: mean(
          points.flatMap((p) => (p.packet_loss_pct === null ? [] : [Number(p.packet_loss_pct)])),
        ),
        rtt_baseline_ms: baseline,
        points: points.length,
        congested_points: congestedPoints,
        top_consumers: [...peaks.values()].sort((a, b) => b.rx_bps - a.rx_bps).slice(0, TOP),
      });
    }
    const alerts = (await q.alertsOfClientDay(this.deps.db, clientId, date)).map((a) => ({
      nas_id: a.nas_id,
      type: a.type,
      raised_at: a.raised_at,
      usage: JSON.parse(a.usage) as unknown,
    }));
    const prefs = this.deps.bandwidth.preferences;
    const { quiet_start, quiet_end } = await prefs.get(clientId);
    const { daily_report_push } = await prefs.qoeSwitches(clientId);
    const id = newId();
    const summary = { date, timezone: zone, nas, alerts };
    return this.deps.db.transaction().execute(async (trx) => {
      const row = {
        client_id: clientId,
        date,
        id,
        created_at: iso(this.deps.clock.now()),
        summary: JSON.stringify(summary),
        pushed: daily_report_push ? 1 : 0,
      };
      if (!(await q.insertReport(trx, row))) return false;
      if (daily_report_push) {
        const hour = Math.floor(local.hoursIntoDay);
        const total = nas.reduce((s, n) => s + n.daily_gb, 0);
        await this.deps.notifications.notify(
          {
            recipientId: clientId,
            type: 'QOE_DAILY_REPORT',
            title: 'Rapport réseau du jour',
            body: `${date} : ${Math.round(total * 10) / 10} Go consommés, ${alerts.length} alerte(s).`,
            data: { report_id: id, date },
            dedupKey: date,
            channels: ['in_app', 'push'],
            ...(inQuiet(hour, quiet_start, quiet_end)
              ? { quietHours: quietWindowUtc(now, local.hoursIntoDay, quiet_end!) }
              : {}),
          },
          trx,
        );
      }
      return true;
    });
  }

  async list(clientId: string, limit: number) {
    const rows = await q.listReports(this.deps.db, clientId, limit);
    return {
      reports: rows.map((r) => ({
        id: r.id,
        date: r.date,
        created_at: r.created_at,
        pushed: r.pushed === 1,
        summary: JSON.parse(r.summary) as unknown,
      })),
    };
  }
}
