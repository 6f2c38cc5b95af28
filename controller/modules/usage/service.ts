// The WAN usage store: bytes per router-day in the router's time zone, fed by the agents'
// telemetry (each stored report is handed to `ingest`), read by the bandwidth programme and, later,
// by network-quality monitoring. One reading per report; see counter-delta.ts for what counts.
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { counterDelta } from './counter-delta.js';
import { HOUR_MS, lastTwoHours, twoHoursFrom } from './last-two-hours.js';
import * as q from './queries.js';
import type { UsageHoursTable, UsageRoutersTable } from './tables.js';
import { addDays, knownZone, routerDay } from './router-day.js';

/** One reading of a router's WAN counters, as its agent took it. */
export interface UsagePoint {
  clientId: string;
  allocationId: string;
  at: Date;
  rxBytes: number;
  txBytes: number;
  /** The router clock's zone when the agent read it; absent keeps what is known. */
  timeZone?: string | null;
}

export interface UsageTotals {
  /** Null when the router never reported a reading. */
  octetsJour: number | null;
  octetsDeuxHeures: number | null;
  octetsMois: number | null;
  dernierReleve: string | null;
}

const QUARTER_MS = 900_000;

export class UsageService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Lock the routers' rows read before a write (PostgreSQL); SQLite serialises writers. */
    private readonly rowLocks = false,
    /** The last writes of a batch and its sums go in one statement (`writableCtes`). */
    private readonly writableCtes = false,
  ) {}

  /** Records one reading; returns the bytes it added (null when the interval was not counted). */
  async ingest(point: UsagePoint): Promise<number | null> {
    return this.db.transaction().execute(async (trx) => (await this.ingestMany(trx, [point]))[0]!);
  }

  /**
   * Records readings on the transaction `trx` (the caller commits them with its own writes), as if
   * `ingest` took each one in turn in the order given: the previous reading of each router is read
   * once (locked where the database locks rows, so two instances count an interval once), each
   * reading is judged against the one before it in memory, and the routers and hour buckets are
   * written in a few multi-row statements.
   * @returns the bytes each reading added, in the order given (null when not counted).
   */
  async ingestMany(trx: Db, points: readonly UsagePoint[]): Promise<(number | null)[]> {
    return (await this.ingestManyWithRecent(trx, points)).added;
  }

  /**
   * `ingestMany`, and with `since`, `bytesSinceMany` of each router to which a reading added
   * bytes, as it stands once they are written (on PostgreSQL the last writes and that read are
   * one statement: a round trip less in the caller's transaction, and its row locks held less).
   * A bucket that another client's row holds counts in the sum too: a bound that errs high.
   */
  async ingestManyWithRecent(
    trx: Db,
    points: readonly UsagePoint[],
    since?: Date,
  ): Promise<{ added: (number | null)[]; recent: Map<string, number> }> {
    if (points.length === 0) return { added: [], recent: new Map() };
    const ids = [...new Set(points.map((p) => p.allocationId))];
    const routers = new Map<string, UsageRoutersTable>(
      (await q.findRouters(trx, ids, this.rowLocks)).map((r) => [r.allocation_id, r]),
    );
    const changed = new Map<string, UsageRoutersTable>();
    const hours = new Map<string, UsageHoursTable>();
    const updatedAt = iso(this.clock.now());
    // Every zone's offset is a multiple of 15 minutes: a router day is one value over each UTC
    // quarter hour, so a batch formats a date once per zone and quarter instead of per reading.
    const days = new Map<string, string>();
    const dayOf = (at: Date, zone: string | null) => {
      const key = `${zone ?? ''} ${Math.floor(at.getTime() / QUARTER_MS)}`;
      let day = days.get(key);
      if (day === undefined) days.set(key, (day = routerDay(at, zone).day));
      return day;
    };
    const added = points.map((point) => {
      const prev = routers.get(point.allocationId);
      const at = point.at.getTime();
      // A reading older than the one kept (a late resend) changes nothing.
      if (prev?.last_at && Date.parse(prev.last_at) >= at) return null;
      const zone = point.timeZone ?? prev?.time_zone ?? null;
      const last =
        prev?.last_at && prev.last_rx_bytes !== null && prev.last_tx_bytes !== null
          ? { at: Date.parse(prev.last_at), rx: Number(prev.last_rx_bytes), tx: Number(prev.last_tx_bytes) }
          : null;
      const bytes = counterDelta(last, { at, rx: point.rxBytes, tx: point.txBytes });
      const row: UsageRoutersTable = {
        allocation_id: point.allocationId,
        client_id: point.clientId,
        time_zone: zone,
        last_at: iso(point.at),
        last_rx_bytes: point.rxBytes,
        last_tx_bytes: point.txBytes,
        updated_at: updatedAt,
      };
      routers.set(point.allocationId, row);
      changed.set(point.allocationId, row);
      if (bytes !== null && bytes > 0) {
        const hour = iso(new Date(Math.floor(at / HOUR_MS) * HOUR_MS));
        const key = `${point.allocationId} ${hour}`;
        const bucket = hours.get(key);
        // As one upsert per reading would leave it: the bytes summed, the last reading's day kept
        // (the client of the bucket's first row stays, as on conflict).
        const localDay = dayOf(point.at, zone);
        if (bucket) {
          bucket.bytes += bytes;
          bucket.local_day = localDay;
        } else
          hours.set(key, {
            allocation_id: point.allocationId,
            hour,
            client_id: point.clientId,
            local_day: localDay,
            bytes,
          });
      }
      return bytes;
    });
    const clientOf = new Map<string, string>();
    points.forEach((p, i) => {
      if ((added[i] ?? 0) > 0) clientOf.set(p.allocationId, p.clientId);
    });
    const routerRows = [...changed.values()];
    const hourRows = [...hours.values()];
    if (!since || clientOf.size === 0) {
      await q.saveRouters(trx, routerRows);
      if (hourRows.length > 0) await q.addHoursBytes(trx, hourRows);
      return { added, recent: new Map() };
    }
    const hour = iso(new Date(Math.floor(since.getTime() / HOUR_MS) * HOUR_MS));
    if (!this.writableCtes || routerRows.length > q.CHUNK || hourRows.length > q.CHUNK) {
      await q.saveRouters(trx, routerRows);
      await q.addHoursBytes(trx, hourRows);
      return { added, recent: await this.bytesSinceMany(clientOf, since, trx) };
    }
    const before = await q.saveAndSumBefore(trx, routerRows, hourRows, [...clientOf.keys()], hour);
    const recent = new Map<string, number>();
    for (const r of before)
      if (clientOf.get(r.allocation_id) === r.client_id)
        recent.set(r.allocation_id, (recent.get(r.allocation_id) ?? 0) + Number(r.bytes));
    // What this statement added, which its snapshot did not see.
    for (const h of hourRows)
      if (h.hour >= hour && clientOf.has(h.allocation_id))
        recent.set(h.allocation_id, (recent.get(h.allocation_id) ?? 0) + h.bytes);
    return { added, recent };
  }

  /** Records the router's zone alone (from its facts), keeping its counters. */
  async recordTimeZone(clientId: string, allocationId: string, timeZone: string): Promise<void> {
    const prev = await q.findRouter(this.db, allocationId);
    await q.saveRouter(this.db, {
      allocation_id: allocationId,
      client_id: clientId,
      time_zone: timeZone,
      last_at: prev?.last_at ?? null,
      last_rx_bytes: prev?.last_rx_bytes ?? null,
      last_tx_bytes: prev?.last_tx_bytes ?? null,
      updated_at: iso(this.clock.now()),
    });
  }

  /** The router's time zone as an IANA name; UTC when unknown. */
  async timeZone(allocationId: string): Promise<string> {
    return knownZone((await q.findRouter(this.db, allocationId))?.time_zone);
  }

  /** Bytes per router day from `from` to `to` (inclusive); days without a measurement are absent. */
  async dailyTotals(clientId: string, allocationId: string, from: string, to: string) {
    const rows = await q.dayTotals(this.db, clientId, allocationId, from, to);
    return rows.map((r) => ({ day: r.local_day, bytes: Number(r.bytes) }));
  }

  /** Today's, this month's and the last two hours' bytes in the router's time zone at `now`. */
  async totals(clientId: string, allocationId: string, now: Date): Promise<UsageTotals> {
    const router = await q.findRouter(this.db, allocationId);
    if (!router || router.client_id !== clientId || router.last_at === null)
      return { octetsJour: null, octetsDeuxHeures: null, octetsMois: null, dernierReleve: null };
    const today = routerDay(now, router.time_zone).day;
    const days = await this.dailyTotals(clientId, allocationId, `${today.slice(0, 8)}01`, today);
    const recent = await q.hourBytesSince(this.db, clientId, allocationId, twoHoursFrom(now));
    return {
      octetsJour: days.find((d) => d.day === today)?.bytes ?? 0,
      octetsDeuxHeures: lastTwoHours(recent, now),
      octetsMois: days.reduce((sum, d) => sum + d.bytes, 0),
      dernierReleve: router.last_at,
    };
  }

  /**
   * `bytesSince` of many routers (allocation id to client id) in one statement per 500, on `db` (a
   * caller's transaction); keyed by allocation id.
   */
  async bytesSinceMany(
    clientOf: ReadonlyMap<string, string>,
    since: Date,
    db: Db = this.db,
  ): Promise<Map<string, number>> {
    const hour = iso(new Date(Math.floor(since.getTime() / HOUR_MS) * HOUR_MS));
    const rows = clientOf.size > 0 ? await q.bytesSinceMany(db, [...clientOf.keys()], hour) : [];
    const out = new Map<string, number>();
    for (const r of rows)
      if (clientOf.get(r.allocation_id) === r.client_id)
        out.set(r.allocation_id, (out.get(r.allocation_id) ?? 0) + Number(r.bytes));
    return out;
  }

  /**
   * `timeZone` and `totals` of many routers in three statements (a reconciliation pass): keyed by
   * allocation id; a router of another client than the one given reads as never measured.
   */
  async totalsMany(
    routers: readonly { clientId: string; allocationId: string }[],
    now: Date,
  ): Promise<Map<string, { timeZone: string; totals: UsageTotals }>> {
    const ids = [...new Set(routers.map((r) => r.allocationId))];
    const owner = new Map(routers.map((r) => [r.allocationId, r.clientId]));
    const known = new Map(
      (await q.findRouters(this.db, ids))
        .filter((r) => owner.get(r.allocation_id) === r.client_id)
        .map((r) => [r.allocation_id, r]),
    );
    const today = new Map([...known].map(([id, r]) => [id, routerDay(now, r.time_zone).day]));
    // Every router's month starts on or after the earliest one (zones differ by a day at most).
    const from = [...today.values()].map((d) => `${d.slice(0, 8)}01`).sort()[0];
    const days = from && ids.length > 0 ? await q.dayTotalsMany(this.db, [...known.keys()], from) : [];
    const recent =
      known.size > 0 ? await q.hourBytesSinceMany(this.db, [...known.keys()], twoHoursFrom(now)) : [];
    const daysOf = new Map<string, typeof days>();
    for (const d of days) {
      if (known.get(d.allocation_id)?.client_id !== d.client_id) continue;
      daysOf.set(d.allocation_id, [...(daysOf.get(d.allocation_id) ?? []), d]);
    }
    const recentOf = new Map<string, typeof recent>();
    for (const r of recent) {
      if (known.get(r.allocation_id)?.client_id !== r.client_id) continue;
      recentOf.set(r.allocation_id, [...(recentOf.get(r.allocation_id) ?? []), r]);
    }
    const out = new Map<string, { timeZone: string; totals: UsageTotals }>();
    for (const id of ids) {
      const router = known.get(id);
      if (!router || router.last_at === null) {
        out.set(id, {
          timeZone: knownZone(router?.time_zone),
          totals: { octetsJour: null, octetsDeuxHeures: null, octetsMois: null, dernierReleve: null },
        });
        continue;
      }
      const day = today.get(id)!;
      const mine = (daysOf.get(id) ?? []).filter(
        (d) => d.local_day.slice(0, 7) === day.slice(0, 7) && d.local_day <= day,
      );
      out.set(id, {
        timeZone: knownZone(router.time_zone),
        totals: {
          octetsJour: Number(mine.find((d) => d.local_day === day)?.bytes ?? 0),
          octetsDeuxHeures: lastTwoHours(recentOf.get(id) ?? [], now),
          octetsMois: mine.reduce((sum, d) => sum + Number(d.bytes), 0),
          dernierReleve: router.last_at,
        },
      });
    }
    return out;
  }

  /** Takes a stored agent report: telemetry readings (and a zone) feed the store; others are ignored. */
  async fromReport(
    clientId: string,
    allocationId: string,
    kind: string,
    at: string,
    data: unknown,
  ): Promise<void> {
    if (kind !== 'telemetry' || typeof data !== 'object' || data === null) return;
    const d = data as Record<string, unknown>;
    const wan = d.wan as Record<string, unknown> | undefined;
    const zone = typeof d.time_zone === 'string' && d.time_zone !== '' ? d.time_zone : null;
    const rx = wan?.rx_bytes;
    const tx = wan?.tx_bytes;
    if (
      typeof rx === 'number' &&
      typeof tx === 'number' &&
      Number.isSafeInteger(rx) &&
      Number.isSafeInteger(tx) &&
      rx >= 0 &&
      tx >= 0 &&
      !Number.isNaN(Date.parse(at))
    ) {
      await this.ingest({
        clientId,
        allocationId,
        at: new Date(at),
        rxBytes: rx,
        txBytes: tx,
        timeZone: zone,
      });
    } else if (zone) {
      await this.recordTimeZone(clientId, allocationId, zone);
    }
  }

  /** `addDays` for callers that reason in router days. */
  static addDays = addDays;

  logFailure(err: unknown, allocationId: string): void {
    this.logger.warn({ allocationId, err: (err as Error).message }, 'usage reading not recorded');
  }
}
