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
import {
  bandwidthDigest,
  beforeFastTrack,
  keyOf,
  normaliseValue,
  readBandwidthObjects,
  type Row,
} from './bandwidth-digest.js';
import {
  bandwidthPlan,
  MENUS,
  type BandwidthParams,
  type MenuKey,
  type PlannedObject,
} from './bandwidth-plan.js';
import type { BandwidthWatch } from './bandwidth-watch.js';

export { normaliseValue } from './bandwidth-digest.js';

type Output = CommandOutput<'bandwidth.apply'>;

interface Counts {
  found: number;
  added: number;
  updated: number;
  removed: number;
}

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
  options: { signal?: AbortSignal; watch?: BandwidthWatch } = {},
): Promise<Output> {
  const call = options.signal ? { signal: options.signal } : {};
  // Through the watch when there is one, so the digest answered is kept for the next pass.
  const read = () => (options.watch ? options.watch.read(router, call) : readBandwidthObjects(router, call));
  // Several calls share the deadline's signal at once (each adds its abort listener).
  if (options.signal) setMaxListeners(100, options.signal);
  const needed = params.cap !== null || params.users.length > 0;
  const objects = await read();
  const { wan, marked, fastTrack: userFastTrack } = objects;
  if (needed && wan === null)
    throw new RouterError('ROUTER_TRAP', 'no active default route: the WAN interface is unknown');
  const plan = bandwidthPlan(params, needed ? wan : null, userFastTrack.length > 0);
  const counts: Counts = { found: 0, added: 0, updated: 0, removed: 0 };
  for (const menu of Object.keys(MENUS) as MenuKey[]) counts.found += marked[menu].length;

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
    return plan[menu].every((want, i) => {
      const have = mine[i]!;
      if (keyOf(menu, have) !== want.key || Object.keys(changedProps(want, have)).length > 0) return false;
      // A hold rule after the FastTrack rule holds nothing.
      return menu !== 'filter' || beforeFastTrack(objects, have);
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

  // The digest of what the router holds now: read again only when something was written.
  const wrote = counts.added + counts.updated + counts.removed > 0;
  return {
    ...counts,
    state: params.cap !== null ? 'ON' : 'OFF',
    users: params.users.length,
    wan_interface: needed ? wan : null,
    digest: bandwidthDigest(wrote ? await read() : objects),
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
