// Group commit of telemetry points (the HTTP route's and the agents' link's alike). A point is
// queued; the points queued meanwhile are taken together: their bridge tokens and NAS read in a
// few statements, then stored in one transaction (a multi-row INSERT that leaves out a replay, the
// usage of the batch judged in memory against each router's previous reading), and each caller
// answered once that transaction has committed. While a batch commits the next collects; where
// the database runs transactions side by side (PostgreSQL), up to CONCURRENT_BATCHES commit at
// once, so a point need not wait for the commit in flight before its own. Two batches that share
// a router never overlap: the later starts its transaction once the earlier has committed, so each
// router's readings are still judged in arrival order.
//
// A batch's transaction that fails is tried again one point at a time, each in a transaction of
// its own: a point that cannot be stored fails its own caller only, the others are stored and
// answered as if they had come alone.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import { errorFields, type Logger } from '../../logger.js';
import type { LiveNas, NasService } from '../nas/index.js';
import type { UsagePoint, UsageService } from '../usage/index.js';
import type { AlertType } from './alerts.js';
import * as q from './queries.js';
import type { AgentPoint } from './schemas.js';
import type { QoePointsTable } from './tables.js';
import { ACCELERATION_MIN_BYTES } from './usage-verdict.js';

/** A point stamped further ahead of our clock than this is refused (a router clock gone wrong). */
const MAX_AHEAD_MS = 5 * 60_000;
/** Most points in one batch: a burst beyond it is stored in several transactions in a row. */
const MAX_BATCH = 1000;
/** Batches committing at once where the database allows it (a few of the pool's connections). */
export const CONCURRENT_BATCHES = 4;
/** Under 5 GiB in this window, neither today (a day of 25 hours at most) nor two hours reach a threshold. */
const ALERT_WINDOW_MS = 26 * 3_600_000;

export interface TelemetryAnswer {
  accepted: true;
  event: { id: string; observed_at: string };
}

/** Where a point comes from: a bridge token (HTTP route) or an enrolled agent's link. */
export type PointSource =
  | { kind: 'token'; tokenHash: string; nasId: string }
  | { kind: 'agent'; clientId: string; allocationId: string };

export interface PointIngestionDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  nas: NasService;
  usage: UsageService;
  /** Batches that may commit at once: 1 where transactions run one at a time (SQLite). */
  concurrentBatches: number;
  /** The usage alert check of a NAS (alerts.ts); its failure never fails the point. */
  checkAlerts(clientId: string, nasId: string, allocationId: string, now: Date): Promise<AlertType[]>;
}

/** What a batch's transaction answers: per point, its answer and the bytes it added. */
interface Written {
  answers: (TelemetryAnswer | null)[];
  added: (number | null)[];
  /** Bytes of the last 26 hours of each router whose usage grew, read before the commit. */
  recent: Map<string, number>;
}

interface Pending {
  source: PointSource;
  point: AgentPoint;
  receivedAt: Date;
  /** Null: an agent's point whose allocation has no live NAS (only its counters were kept). */
  resolve(answer: TelemetryAnswer | null): void;
  reject(err: unknown): void;
}

/** A point whose source is known: its client, and its NAS unless the allocation has none live. */
interface Resolved {
  p: Pending;
  clientId: string;
  allocationId: string;
  nas: LiveNas | null;
}

export class PointIngestion {
  readonly #queue: Pending[] = [];
  #scheduled = false;
  /** A batch is reading its points' sources: the next waits, so batches take their turn in order. */
  #resolving = false;
  /** Batches between their sources' read and their callers' answers. */
  #storing = 0;
  /** The last batch of each router (allocation id) not yet committed: a later one waits for it. */
  readonly #routerTurn = new Map<string, Promise<void>>();
  /** Batches committed and points they carried (for tests and status). */
  readonly stats = { batches: 0, points: 0 };

  constructor(private readonly deps: PointIngestionDeps) {}

  /**
   * Stores the point in a coming batch; resolves with its event once committed (a replay: the
   * event first stored), or null for an agent's point whose allocation has no live NAS.
   * @throws AppError QOE_BRIDGE_TOKEN_INVALID, QOE_NAS_MISMATCH, VALIDATION_ERROR.
   */
  submit(source: PointSource, point: AgentPoint): Promise<TelemetryAnswer | null> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ source, point, receivedAt: this.deps.clock.now(), resolve, reject });
      this.#schedule();
    });
  }

  // The next batch starts after the I/O callbacks of this turn (every request read with this one
  // joins it), once the previous batch has read its sources and while fewer than
  // `concurrentBatches` are committing; otherwise the points wait for the next.
  #schedule(): void {
    if (this.#scheduled || this.#resolving || this.#queue.length === 0) return;
    if (this.#storing >= this.deps.concurrentBatches) return;
    this.#scheduled = true;
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#resolving = true;
    this.#storing += 1;
    const batch = this.#queue.splice(0, MAX_BATCH);
    let resolved: Resolved[] = [];
    try {
      resolved = await this.#resolve(batch).catch((err: unknown) => {
        for (const p of batch) p.reject(err);
        return [];
      });
    } finally {
      this.#resolving = false;
    }
    // Batches read their sources one after another, so they take their routers' turns in the
    // order they were formed: a batch waits only for earlier ones, never in a cycle.
    const routers = new Set(resolved.map((r) => r.allocationId));
    const earlier = [...routers].flatMap((id) => this.#routerTurn.get(id) ?? []);
    const stored = Promise.all(earlier).then(() => (resolved.length > 0 ? this.#store(resolved) : undefined));
    const turn = stored.then(
      () => undefined,
      () => undefined,
    );
    for (const id of routers) this.#routerTurn.set(id, turn);
    this.#schedule();
    try {
      await stored;
    } finally {
      for (const id of routers) if (this.#routerTurn.get(id) === turn) this.#routerTurn.delete(id);
      this.#storing -= 1;
      this.#schedule();
    }
  }

  /** Each point's client and NAS, in three statements for the batch; refusals answered here. */
  async #resolve(batch: Pending[]): Promise<Resolved[]> {
    const hashes = new Set<string>();
    const allocations = new Set<string>();
    for (const p of batch)
      if (p.source.kind === 'token') hashes.add(p.source.tokenHash);
      else allocations.add(p.source.allocationId);
    const tokens = new Map(
      (hashes.size > 0 ? await q.findBridgeTokens(this.deps.db, [...hashes]) : []).map((t) => [
        t.token_hash,
        t,
      ]),
    );
    const ofAllocation = new Map<string, { nas_id: string; client_id: string }[]>();
    if (allocations.size > 0)
      for (const t of await q.bridgeTokensOfAllocations(this.deps.db, [...allocations]))
        ofAllocation.set(t.allocation_id, [...(ofAllocation.get(t.allocation_id) ?? []), t]);
    const wanted = [...tokens.values(), ...[...ofAllocation.values()].flat()].map((t) => ({
      clientId: t.client_id,
      nasId: t.nas_id,
    }));
    const live = wanted.length > 0 ? await this.deps.nas.findLiveMany(wanted) : new Map<string, LiveNas>();

    const out: Resolved[] = [];
    for (const p of batch) {
      try {
        out.push(this.#resolveOne(p, tokens, ofAllocation, live));
      } catch (err) {
        p.reject(err);
      }
    }
    return out;
  }

  #resolveOne(
    p: Pending,
    tokens: Map<string, { nas_id: string; client_id: string }>,
    ofAllocation: Map<string, { nas_id: string; client_id: string }[]>,
    live: Map<string, LiveNas>,
  ): Resolved {
    const s = p.source;
    let resolved: Resolved;
    if (s.kind === 'token') {
      const issued = tokens.get(s.tokenHash);
      const nas = issued ? live.get(issued.nas_id) : undefined;
      if (!issued || !nas) throw new AppError('QOE_BRIDGE_TOKEN_INVALID', 'Unknown bridge token');
      if (s.nasId.toLowerCase() !== nas.id.toLowerCase())
        throw new AppError('QOE_NAS_MISMATCH', 'nas_id is not the NAS of this bridge token');
      resolved = { p, clientId: issued.client_id, allocationId: nas.allocation_id, nas };
    } else {
      // The newest token of the allocation whose NAS is still live (a NAS deleted then enrolled again).
      const nas = (ofAllocation.get(s.allocationId) ?? [])
        .filter((t) => t.client_id === s.clientId)
        .map((t) => live.get(t.nas_id))
        .find((n) => n !== undefined);
      resolved = { p, clientId: s.clientId, allocationId: s.allocationId, nas: nas ?? null };
    }
    if (Date.parse(p.point.observed_at) > p.receivedAt.getTime() + MAX_AHEAD_MS) {
      const message = 'observed_at is ahead of the server clock';
      throw new AppError('VALIDATION_ERROR', message, { details: [{ field: 'observed_at', message }] });
    }
    return resolved;
  }

  /** Stores the points in one transaction and answers them; one at a time if it fails. */
  async #store(points: Resolved[]): Promise<void> {
    let written: Written;
    try {
      written = await this.deps.db.transaction().execute((trx) => this.#write(trx, points));
    } catch (err) {
      if (points.length === 1) {
        points[0]!.p.reject(err);
        return;
      }
      this.deps.logger.warn(
        { ...errorFields(err, this.deps.logger), points: points.length },
        'qoe batch not stored; storing its points one by one',
      );
      for (const r of points) await this.#store([r]);
      return;
    }
    this.stats.batches += 1;
    this.stats.points += points.length;
    const { answers } = written;
    const checked = this.#alertsDue(points, written);
    points.forEach((r, i) => {
      const alert = r.nas ? checked.get(r.nas.id) : undefined;
      // The caller learns of its point once the alert it may have raised is recorded too.
      if (alert) void alert.then(() => r.p.resolve(answers[i]!));
      else r.p.resolve(answers[i]!);
    });
  }

  async #write(trx: Db, points: Resolved[]): Promise<Written> {
    const rows = new Map<string, QoePointsTable>();
    // The row each point stands for: the first of its NAS and instant in the batch.
    const rowOf = points.map((r) => {
      if (!r.nas) return null;
      const observedAt = iso(new Date(r.p.point.observed_at));
      const key = `${r.nas.id} ${observedAt}`;
      const known = rows.get(key);
      if (known) return { row: known, first: false };
      const b = r.p.point;
      const row: QoePointsTable = {
        id: newId(),
        client_id: r.clientId,
        nas_id: r.nas.id,
        allocation_id: r.nas.allocation_id,
        observed_at: observedAt,
        received_at: iso(r.p.receivedAt),
        rtt_ms: b.rtt_ms ?? null,
        jitter_ms: b.jitter_ms ?? null,
        packet_loss_pct: b.packet_loss_pct ?? null,
        tx_bps: b.tx_bps ?? null,
        rx_bps: b.rx_bps ?? null,
        wan_rx_bytes: b.wan_rx_bytes ?? null,
        wan_tx_bytes: b.wan_tx_bytes ?? null,
        top_consumers: JSON.stringify(b.top_consumers),
      };
      rows.set(key, row);
      return { row, first: true };
    });
    // In key order: two instances inserting the same points (a bridge sending to both) wait for
    // each other instead of deadlocking on two keys taken in opposite orders.
    const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    const inserted = await q.insertPoints(trx, sorted);
    // Replays of points stored earlier answer the event first stored.
    const replayed = [...rows.values()].filter((row) => !inserted.has(row.id));
    const storedId = new Map(
      (replayed.length > 0 ? await q.findPointsAt(trx, replayed) : []).map((s) => [
        `${s.nas_id} ${s.observed_at}`,
        s.id,
      ]),
    );

    // Usage, in the order the points came, from the points stored now (and the counters of an
    // agent's allocation without a live NAS): a replay adds nothing, as it would alone.
    const readings: { index: number; reading: UsagePoint }[] = [];
    points.forEach((r, index) => {
      const b = r.p.point;
      const of = rowOf[index];
      if (of && !(of.first && inserted.has(of.row.id))) return;
      if (b.wan_rx_bytes == null || b.wan_tx_bytes == null) return;
      readings.push({
        index,
        reading: {
          clientId: r.clientId,
          allocationId: r.allocationId,
          at: new Date(b.observed_at),
          rxBytes: b.wan_rx_bytes,
          txBytes: b.wan_tx_bytes,
        },
      });
    });
    // The bound before an alert check (see #alertsDue), read in the same transaction.
    const since = new Date(this.deps.clock.now().getTime() - ALERT_WINDOW_MS);
    const usage = await this.deps.usage.ingestManyWithRecent(
      trx,
      readings.map((x) => x.reading),
      since,
    );
    const added = new Array<number | null>(points.length).fill(null);
    readings.forEach((x, i) => (added[x.index] = usage.added[i]!));

    const answers = rowOf.map((of): TelemetryAnswer | null => {
      if (!of) return null;
      const key = `${of.row.nas_id} ${of.row.observed_at}`;
      const id = inserted.has(of.row.id) ? of.row.id : (storedId.get(key) ?? of.row.id);
      return { accepted: true, event: { id, observed_at: of.row.observed_at } };
    });
    const recent = usage.recent;
    return { answers, added, recent };
  }

  /**
   * The alert checks the batch calls for, one per NAS whose usage grew: only where the last 26
   * hours reach 5 GiB, below which neither today nor two hours can cross a threshold. Keyed by NAS
   * id; each settles once its check is done, whatever it found (a failure is logged: the point is
   * stored, the catch-up job checks again).
   */
  #alertsDue(points: Resolved[], written: Written): Map<string, Promise<void>> {
    const out = new Map<string, Promise<void>>();
    const now = this.deps.clock.now();
    points.forEach((r, i) => {
      const nas = r.nas;
      if (!nas || (written.added[i] ?? 0) <= 0 || out.has(nas.id)) return;
      if ((written.recent.get(r.allocationId) ?? 0) < ACCELERATION_MIN_BYTES) return;
      out.set(
        nas.id,
        this.deps.checkAlerts(r.clientId, nas.id, r.allocationId, now).then(
          () => undefined,
          (err: unknown) => {
            this.deps.logger.warn({ nasId: nas.id, err: (err as Error).message }, 'usage alert check failed');
          },
        ),
      );
    });
    return out;
  }
}
