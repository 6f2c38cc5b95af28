// What a pass reads before it works on its routers, for all of them at once: their agents' links,
// zones and usage, live NAS, throttled users and imposed caps. A handful of statements per pass
// instead of several per router.
import type { LiveNas } from '../nas/index.js';
import type { UsageTotals } from '../usage/index.js';
import type { BandwidthDeps, ImposedCaps } from './deps.js';
import * as q from './queries.js';
import type { BandwidthProgrammesTable, BandwidthThrottlesTable } from './tables.js';

export interface RouterContext {
  linked: boolean;
  timeZone: string;
  usage: UsageTotals;
  nas: LiveNas | null;
  throttles: BandwidthThrottlesTable[];
  /** The imposed cap (Mbps) for this pass: the source's answer, or the last one when it failed. */
  imposedCapMbps: number | null;
}

const UNMEASURED: UsageTotals = {
  octetsJour: null,
  octetsDeuxHeures: null,
  octetsMois: null,
  dernierReleve: null,
};

export async function passContext(
  deps: BandwidthDeps,
  imposed: ImposedCaps | null,
  rows: readonly BandwidthProgrammesTable[],
  now: Date,
): Promise<Map<string, RouterContext>> {
  const out = new Map<string, RouterContext>();
  if (rows.length === 0) return out;
  const links = await deps.links.linksOf(rows.map((r) => r.allocation_id));
  const usage = await deps.usage.totalsMany(
    rows.map((r) => ({ clientId: r.client_id, allocationId: r.allocation_id })),
    now,
  );
  const nas = new Map<string, LiveNas>();
  for (const clientId of new Set(rows.map((r) => r.client_id)))
    for (const n of await deps.nas.listLiveNas(clientId)) nas.set(`${clientId}/${n.id}`, n);
  const throttles = new Map<string, BandwidthThrottlesTable[]>();
  for (const t of await q.throttlesOf(
    deps.db,
    rows.map((r) => r.nas_id),
  )) {
    throttles.set(t.nas_id, [...(throttles.get(t.nas_id) ?? []), t]);
  }
  const caps = await imposedCaps(deps, imposed, rows, now);
  for (const row of rows) {
    const u = usage.get(row.allocation_id);
    out.set(row.nas_id, {
      linked: links.get(row.allocation_id)?.link_state === 'CONNECTED',
      timeZone: u?.timeZone ?? 'UTC',
      usage: u?.totals ?? UNMEASURED,
      nas: nas.get(`${row.client_id}/${row.nas_id}`) ?? null,
      throttles: (throttles.get(row.nas_id) ?? []).filter((t) => t.client_id === row.client_id),
      imposedCapMbps: caps === null ? row.imposed_cap_mbps : (caps.get(row.nas_id) ?? null),
    });
  }
  return out;
}

// A source that fails keeps each router at the cap it had (null: no answer this pass); a value
// that is not a positive number is no cap.
async function imposedCaps(
  deps: BandwidthDeps,
  source: ImposedCaps | null,
  rows: readonly BandwidthProgrammesTable[],
  now: Date,
): Promise<Map<string, number> | null> {
  if (source === null) return new Map();
  try {
    const answer = await source.capsFor(
      rows.map((r) => ({ clientId: r.client_id, nasId: r.nas_id })),
      now,
    );
    const caps = new Map<string, number>();
    for (const [nasId, mbps] of answer) {
      if (typeof mbps === 'number' && Number.isFinite(mbps) && mbps > 0) caps.set(nasId, mbps);
    }
    return caps;
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message }, 'imposed caps not read: each router keeps its last');
    return null;
  }
}
