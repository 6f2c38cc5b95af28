// `bandwidth.apply`: reads the router's marked bandwidth objects, compares them with the plan and
// writes only the difference (docs/bandwidth.md). Unordered menus (queue types, address lists,
// queue tree) are compared object by object; the marked rules of the ordered ones (mangle, filter)
// are rewritten as a block when they differ in any way, order and place included, since a rule's
// effect depends on where it sits. Nothing without our mark is ever changed.
import { setMaxListeners } from 'node:events';
import type { CommandOutput } from '../../protocol/index.js';
import { RouterError } from '../routeros/router-error.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean, parseRouterOsInteger } from '../routeros/ros-values.js';
import { findWanInterface } from '../routeros/wan-interface.js';
import {
  bandwidthPlan,
  BW_MARK,
  BW_TYPE_PREFIX,
  MENUS,
  type BandwidthParams,
  type MenuKey,
  type PlannedObject,
} from './bandwidth-plan.js';

type Output = CommandOutput<'bandwidth.apply'>;
type Row = Record<string, string>;

interface Counts {
  found: number;
  added: number;
  updated: number;
  removed: number;
}

/** Values as RouterOS may print them back: yes/true, 10M/10000000. */
export function normaliseValue(value: string | undefined): string {
  const v = (value ?? '').trim();
  if (v === 'yes' || v === 'true') return 'true';
  if (v === 'no' || v === 'false') return 'false';
  const rate = /^(\d+(?:\.\d+)?)([kMG])$/.exec(v);
  if (rate)
    return String(Math.round(Number(rate[1]) * { k: 1e3, M: 1e6, G: 1e9 }[rate[2] as 'k' | 'M' | 'G']));
  return v;
}

const keyOf = (menu: MenuKey, row: Row): string | undefined => {
  if (menu === 'type') return row.name?.startsWith(BW_TYPE_PREFIX) ? row.name : undefined;
  const comment = row.comment ?? '';
  return comment.startsWith(BW_MARK) ? comment.slice(BW_MARK.length) : undefined;
};

/** The props of `want` the router shows otherwise (an absent property counts as different). */
function changedProps(want: PlannedObject, have: Row): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(want.props)) {
    if (normaliseValue(have[name]) !== normaliseValue(value)) out[name] = value;
  }
  if (parseRouterOsBoolean(have.disabled) === true) out.disabled = 'no';
  return out;
}

export async function applyBandwidth(
  router: RouterConnection,
  params: BandwidthParams,
  options: { signal?: AbortSignal } = {},
): Promise<Output> {
  const call = options.signal ? { signal: options.signal } : {};
  // Several calls share the deadline's signal at once (each adds its abort listener).
  if (options.signal) setMaxListeners(100, options.signal);
  const needed = params.cap !== null || params.users.length > 0;
  const menus = Object.keys(MENUS) as MenuKey[];
  // The reads go out together (tagged API calls): one round trip's wait instead of six.
  const [found, ...printed] = await Promise.all([
    needed ? findWanInterface(router, call) : Promise.resolve(undefined),
    ...menus.map((menu) => router.print(MENUS[menu], call)),
  ]);
  const wan = found ?? null;
  if (needed && wan === null)
    throw new RouterError('ROUTER_TRAP', 'no active default route: the WAN interface is unknown');
  const rows = Object.fromEntries(menus.map((menu, i) => [menu, printed[i]!])) as Record<MenuKey, Row[]>;
  const userFastTrack = rows.filter.filter(
    (r) =>
      r.action === 'fasttrack-connection' &&
      keyOf('filter', r) === undefined &&
      parseRouterOsBoolean(r.disabled) !== true,
  );
  const plan = bandwidthPlan(params, wan, userFastTrack.length > 0);
  const counts: Counts = { found: 0, added: 0, updated: 0, removed: 0 };
  const marked = {} as Record<MenuKey, Row[]>;
  for (const menu of Object.keys(MENUS) as MenuKey[]) {
    marked[menu] = rows[menu].filter(
      (r) => keyOf(menu, r) !== undefined && parseRouterOsBoolean(r.dynamic) !== true,
    );
    counts.found += marked[menu].length;
  }

  const syncUnordered = async (menu: MenuKey, phase: 'write' | 'remove') => {
    const wanted = new Map(plan[menu].map((o) => [o.key, o]));
    const seen = new Set<string>();
    const extras: string[] = [];
    for (const row of marked[menu]) {
      const key = keyOf(menu, row)!;
      if (!wanted.has(key) || seen.has(key)) extras.push(row['.id']!);
      seen.add(key);
    }
    if (phase === 'remove') {
      if (extras.length > 0) {
        await router.remove(MENUS[menu], extras, call);
        counts.removed += extras.length;
      }
      return;
    }
    // The first entry of a key is the one kept (later duplicates are removed).
    const byKey = new Map<string, Row>();
    for (const r of marked[menu]) if (!byKey.has(keyOf(menu, r)!)) byKey.set(keyOf(menu, r)!, r);
    const write = async (want: PlannedObject) => {
      const have = byKey.get(want.key);
      if (!have) {
        await router.add(MENUS[menu], want.props, call);
        counts.added++;
        return;
      }
      const diff = changedProps(want, have);
      if (Object.keys(diff).length > 0) {
        await router.set(MENUS[menu], have['.id']!, diff, call);
        counts.updated++;
      }
    };
    // Entries of one menu do not depend on each other, except tree queues on their parents:
    // parents first, then the rest, each group sent together (tagged API calls).
    const first = plan[menu].filter((o) => menu !== 'tree' || o.props.parent === 'global');
    const then = plan[menu].filter((o) => !first.includes(o));
    await Promise.all(first.map(write));
    await Promise.all(then.map(write));
  };

  const ruleBlockMatches = (menu: 'mangle' | 'filter'): boolean => {
    const mine = marked[menu];
    if (mine.length !== plan[menu].length) return false;
    const firstFastTrack = userFastTrack[0] ? rows.filter.indexOf(userFastTrack[0]) : -1;
    return plan[menu].every((want, i) => {
      const have = mine[i]!;
      if (keyOf(menu, have) !== want.key || Object.keys(changedProps(want, have)).length > 0) return false;
      // A hold rule after the FastTrack rule holds nothing.
      return menu !== 'filter' || firstFastTrack < 0 || rows.filter.indexOf(have) < firstFastTrack;
    });
  };

  const rewriteRules = async (menu: 'mangle' | 'filter') => {
    if (ruleBlockMatches(menu)) return;
    if (marked[menu].length > 0) {
      await router.remove(
        MENUS[menu],
        marked[menu].map((r) => r['.id']!),
        call,
      );
      counts.removed += marked[menu].length;
    }
    const before = menu === 'filter' ? userFastTrack[0]?.['.id'] : undefined;
    for (const want of plan[menu]) {
      await router.add(MENUS[menu], before ? { ...want.props, 'place-before': before } : want.props, call);
      counts.added++;
    }
  };

  // Types and lists first (queues and rules name them), removals once nothing uses them.
  await syncUnordered('type', 'write');
  await syncUnordered('list', 'write');
  await removeQueues(router, marked.tree, plan.tree, counts, call);
  await syncUnordered('tree', 'write');
  await rewriteRules('mangle');
  await rewriteRules('filter');
  await syncUnordered('list', 'remove');
  await syncUnordered('type', 'remove');

  return {
    ...counts,
    state: params.cap !== null ? 'ON' : 'OFF',
    users: params.users.length,
    wan_interface: wan,
  };
}

// Marked queues not in the plan go first, children before their parents.
async function removeQueues(
  router: RouterConnection,
  marked: Row[],
  planned: PlannedObject[],
  counts: Counts,
  call: { signal?: AbortSignal },
): Promise<void> {
  const wanted = new Set(planned.map((o) => o.key));
  const seen = new Set<string>();
  const extras: Row[] = [];
  for (const row of marked) {
    const key = keyOf('tree', row)!;
    if (!wanted.has(key) || seen.has(key)) extras.push(row);
    seen.add(key);
  }
  const depth = (row: Row) => (row.parent === 'global' ? 1 : 0);
  extras.sort((a, b) => depth(a) - depth(b));
  if (extras.length === 0) return;
  await router.remove(
    MENUS.tree,
    extras.map((r) => r['.id']!),
    call,
  );
  counts.removed += extras.length;
}

/** `hotspot.active.usage`: the open hotspot sessions and their byte counters. */
export async function readActiveUsage(
  router: RouterConnection,
  options: { signal?: AbortSignal } = {},
): Promise<CommandOutput<'hotspot.active.usage'>> {
  const rows = await router.print('/ip/hotspot/active', {
    ...(options.signal ? { signal: options.signal } : {}),
    proplist: ['user', 'address', 'bytes-in', 'bytes-out'],
  });
  return {
    sessions: rows
      .filter((r) => r.user && r.address)
      .map((r) => ({
        user: r.user!,
        address: r.address!,
        bytes_in: parseRouterOsInteger(r['bytes-in']) ?? 0,
        bytes_out: parseRouterOsInteger(r['bytes-out']) ?? 0,
      })),
  };
}
