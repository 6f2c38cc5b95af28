// The local sales registry: the history the local ticket manager kept
// on each router, repatriated through the agent page by page, stored once per event, and summed
// with the registry rules: only VENTE is money, CONNEXION is usage, undated sales count in totals
// but in no month. This registry never adds up with platform sales or wallet movements.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { AllocationsService } from '../allocations/index.js';
import { entryHash, parseSalesEntry, scriptNumber } from './sales-entry.js';
import * as q from './queries.js';
import { startOf } from './schemas.js';
import type { SalesRecordsTable } from './tables.js';

/**
 * Which registry an answer shows. Platform sales, wallet movements and the local sales history
 * never add up, so every answer (and the screen that shows it) names its own.
 */
export const REGISTRY = 'LOCAL_SALES_HISTORY';

export const DEFAULT_PAGE_SIZE = 1000;
const PAGE_TIMEOUT_MS = 60_000;
/** A router with more pages than this is not a ticket seller's router; stop rather than loop. */
const MAX_PAGES = 1000;
const MAX_SAMPLES = 20;

export interface SalesRecordView {
  type: SalesRecordsTable['type'];
  sold_at: string | null;
  voucher_code: string;
  price_xof: number | null;
  client_ip: string | null;
  client_mac: string | null;
  duration_label: string | null;
  profile_name: string | null;
  comment: string | null;
  reseller_name: string | null;
  expires_at: string | null;
  month: string | null;
  allocation_id: string;
}

export interface ImportReport {
  registry: typeof REGISTRY;
  allocation_id: string;
  pages: number;
  imported: { entries_read: number; records_created: number; records_existing: number; unreadable: number };
  /** A few unreadable entries and why, to show the manager what was left out. */
  unreadable_samples: { script_id: string; reason: string }[];
}

export interface Summary {
  registry: typeof REGISTRY;
  allocation_id: string | null;
  year: number | null;
  totals: {
    ventes_count: number;
    ventes_xof: number;
    connexions_count: number;
    undated_ventes_count: number;
    undated_ventes_xof: number;
    unpriced_ventes_count: number;
  };
  monthly: { month: string; ventes_count: number; ventes_xof: number; connexions_count: number }[];
}

export interface ListFilter {
  allocation_id?: string | undefined;
  type?: string | undefined;
  reseller?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  offset: number;
}

/** The import reads the router through its agent; the reads check the client's allocation. */
export interface SalesRouter {
  allocations: AllocationsService;
  runner: AgentCommandRunner;
}

export class SalesService {
  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly router: SalesRouter,
  ) {}

  /**
   * Repatriates the router's history. Each page is one command, then one short transaction; an
   * interrupted import keeps the pages already stored, and running it again stores only what is new.
   */
  async import(clientId: string, allocationId: string, pageSize = DEFAULT_PAGE_SIZE): Promise<ImportReport> {
    const report: ImportReport = {
      registry: REGISTRY,
      allocation_id: allocationId,
      pages: 0,
      imported: { entries_read: 0, records_created: 0, records_existing: 0, unreadable: 0 },
      unreadable_samples: [],
    };
    let cursor: string | undefined;
    do {
      const page = await this.router.runner.runForRequest(
        { clientId, allocationId },
        'sales.export',
        { limit: pageSize, ...(cursor !== undefined ? { cursor } : {}) },
        PAGE_TIMEOUT_MS,
      );
      report.pages++;
      const now = iso(this.clock.now());
      const rows: SalesRecordsTable[] = [];
      for (const entry of page.entries) {
        const parsed = parseSalesEntry(entry);
        if (!parsed.ok) {
          report.imported.unreadable++;
          if (report.unreadable_samples.length < MAX_SAMPLES) {
            report.unreadable_samples.push({ script_id: entry.script_id, reason: parsed.reason });
          }
          continue;
        }
        rows.push({
          id: newId(),
          client_id: clientId,
          allocation_id: allocationId,
          entry_hash: entryHash(entry),
          script_id: entry.script_id,
          script_no: scriptNumber(entry.script_id),
          ...parsed.sale,
          raw_name: entry.name,
          owner: entry.owner ?? null,
          imported_at: now,
        });
      }
      const created = await this.#store(rows);
      report.imported.entries_read += page.entries.length;
      report.imported.records_created += created;
      report.imported.records_existing += rows.length - created;
      const next = page.next_cursor ?? undefined;
      // A cursor that does not move forward would loop for ever: a faulty agent, not more history.
      if (next !== undefined && cursor !== undefined && scriptNumber(next) <= scriptNumber(cursor)) {
        throw new AppError('ROUTER_COMMAND_FAILED', 'The router history did not advance between pages', {
          details: { cursor, next_cursor: next, pages: report.pages },
        });
      }
      if (next !== undefined && report.pages >= MAX_PAGES) {
        throw new AppError('ROUTER_COMMAND_FAILED', `The router history has more than ${MAX_PAGES} pages`, {
          details: { pages: report.pages },
        });
      }
      cursor = next;
    } while (cursor !== undefined);
    return report;
  }

  async list(clientId: string, filter: ListFilter): Promise<SalesRecordView[]> {
    if (filter.allocation_id !== undefined) await this.router.allocations.get(clientId, filter.allocation_id);
    const to =
      filter.to === undefined
        ? undefined
        : /^\d{4}-\d{2}-\d{2}$/.test(filter.to)
          ? { value: nextDay(filter.to), inclusive: false }
          : { value: new Date(filter.to).toISOString(), inclusive: true };
    const rows = await q.listSales(
      this.db,
      clientId,
      {
        allocationId: filter.allocation_id,
        type: filter.type as SalesRecordsTable['type'] | undefined,
        reseller: filter.reseller,
        from: filter.from === undefined ? undefined : startOf(filter.from),
        to,
      },
      filter.limit,
      filter.offset,
    );
    return rows.map(view);
  }

  async summary(clientId: string, allocationId?: string, year?: number): Promise<Summary> {
    if (allocationId !== undefined) await this.router.allocations.get(clientId, allocationId);
    const t = await q.totals(this.db, clientId, allocationId);
    const months = await q.monthly(this.db, clientId, allocationId, year);
    return {
      registry: REGISTRY,
      allocation_id: allocationId ?? null,
      year: year ?? null,
      totals: {
        ventes_count: Number(t.ventes_count ?? 0),
        ventes_xof: Number(t.ventes_xof ?? 0),
        connexions_count: Number(t.connexions_count ?? 0),
        undated_ventes_count: Number(t.undated_ventes_count ?? 0),
        undated_ventes_xof: Number(t.undated_ventes_xof ?? 0),
        unpriced_ventes_count: Number(t.unpriced_ventes_count ?? 0),
      },
      monthly: months.map((m) => ({
        month: m.month!,
        ventes_count: Number(m.ventes_count),
        ventes_xof: Number(m.ventes_xof),
        connexions_count: Number(m.connexions_count),
      })),
    };
  }

  async #store(rows: SalesRecordsTable[]): Promise<number> {
    if (rows.length === 0) return 0;
    const perStatement = Math.max(1, Math.floor(this.caps.maxBindParameters / q.SALES_COLUMNS) - 1);
    return this.db.transaction().execute(async (trx) => {
      let created = 0;
      for (let i = 0; i < rows.length; i += perStatement) {
        created += await q.insertNew(trx, rows.slice(i, i + perStatement));
      }
      return created;
    });
  }
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

function view(r: SalesRecordsTable): SalesRecordView {
  return {
    type: r.type,
    sold_at: r.sold_at,
    voucher_code: r.voucher_code,
    price_xof: r.price_xof === null ? null : Number(r.price_xof),
    client_ip: r.client_ip,
    client_mac: r.client_mac,
    duration_label: r.duration_label,
    profile_name: r.profile_name,
    comment: r.comment,
    reseller_name: r.reseller_name,
    expires_at: r.expires_at,
    month: r.month,
    allocation_id: r.allocation_id,
  };
}
