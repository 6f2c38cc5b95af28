// The router's bandwidth objects as `bandwidth.apply` reads them, and their digest. A pass over a
// router whose params did not change sends `bandwidth.digest` (a read, no params; answered by
// bandwidth-watch.ts) and compares the answer with the digest `bandwidth.apply` gave last time:
// equal means nothing to write, so the whole plan is neither sent nor compared. The digest covers every property the plan writes, the
// order of the marked rules, where the hold rules sit against the site's FastTrack rule, and the
// WAN interface, so anything `bandwidth.apply` would correct changes it.
import { createHash } from 'node:crypto';
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';
import { findWanInterface } from '../routeros/wan-interface.js';
import { BW_MARK, BW_TYPE_PREFIX, MENUS, type MenuKey } from './bandwidth-plan.js';

export type Row = Record<string, string>;

/** The only queue types the plan writes. */
const TYPE_NAMES = [`${BW_TYPE_PREFIX}pcq-down`, `${BW_TYPE_PREFIX}pcq-up`];

/** Per menu, the properties read: every one the plan writes, plus what tells ours and the site's apart. */
const PROPS: Record<MenuKey, readonly string[]> = {
  type: ['name', 'kind', 'pcq-classifier', 'pcq-rate'],
  list: ['list', 'address', 'comment', 'disabled', 'dynamic'],
  mangle: [
    'chain',
    'action',
    'new-packet-mark',
    'passthrough',
    'in-interface',
    'out-interface',
    'src-address-list',
    'dst-address-list',
    'comment',
    'disabled',
    'dynamic',
  ],
  tree: [
    'name',
    'parent',
    'packet-mark',
    'priority',
    'limit-at',
    'max-limit',
    'queue',
    'comment',
    'disabled',
  ],
  filter: [
    'chain',
    'action',
    'connection-state',
    'src-address-list',
    'dst-address-list',
    'comment',
    'disabled',
    'dynamic',
  ],
};

export interface BandwidthObjects {
  /** Null when the router has no active default route. */
  wan: string | null;
  /** Every row of each menu, in the router's order (ours and the site's). */
  rows: Record<MenuKey, Row[]>;
  /** Our rows (marked, not dynamic), in the router's order. */
  marked: Record<MenuKey, Row[]>;
  /** The site's enabled FastTrack rules, in order. */
  fastTrack: Row[];
}

export const keyOf = (menu: MenuKey, row: Row): string | undefined => {
  if (menu === 'type') return row.name?.startsWith(BW_TYPE_PREFIX) ? row.name : undefined;
  const comment = row.comment ?? '';
  return comment.startsWith(BW_MARK) ? comment.slice(BW_MARK.length) : undefined;
};

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

/** The six reads, sent together (tagged API calls): one round trip's wait instead of six. */
export async function readBandwidthObjects(
  router: RouterConnection,
  call: { signal?: AbortSignal },
): Promise<BandwidthObjects> {
  const menus = Object.keys(MENUS) as MenuKey[];
  const [wan, ...printed] = await Promise.all([
    findWanInterface(router, call),
    ...menus.map((menu) =>
      router.print(MENUS[menu], {
        ...call,
        proplist: ['.id', ...PROPS[menu]],
        // Queue types are ours by name: the router's built-in types need not cross the link.
        ...(menu === 'type' ? { anyOf: { prop: 'name', values: TYPE_NAMES } } : {}),
      }),
    ),
  ]);
  const rows = Object.fromEntries(menus.map((menu, i) => [menu, printed[i]!])) as Record<MenuKey, Row[]>;
  const marked = Object.fromEntries(
    menus.map((menu) => [
      menu,
      rows[menu].filter((r) => keyOf(menu, r) !== undefined && parseRouterOsBoolean(r.dynamic) !== true),
    ]),
  ) as Record<MenuKey, Row[]>;
  const fastTrack = rows.filter.filter(
    (r) =>
      r.action === 'fasttrack-connection' &&
      keyOf('filter', r) === undefined &&
      parseRouterOsBoolean(r.disabled) !== true,
  );
  return { wan: wan ?? null, rows, marked, fastTrack };
}

/** Whether a marked filter rule sits before the site's first FastTrack rule (or there is none). */
export function beforeFastTrack(objects: BandwidthObjects, row: Row): boolean {
  const first = objects.fastTrack[0];
  return first === undefined || objects.rows.filter.indexOf(row) < objects.rows.filter.indexOf(first);
}

export function bandwidthDigest(objects: BandwidthObjects): string {
  const hash = createHash('sha256');
  hash.update(`wan=${objects.wan ?? ''}\nfasttrack=${objects.fastTrack.length > 0}\n`);
  for (const menu of Object.keys(MENUS) as MenuKey[]) {
    hash.update(`[${menu}]\n`);
    for (const row of objects.marked[menu]) {
      const props = PROPS[menu]
        .filter((p) => p !== 'dynamic' && row[p] !== undefined)
        .map((p) => `${p}=${normaliseValue(row[p])}`);
      if (menu === 'filter') props.push(`before=${beforeFastTrack(objects, row)}`);
      hash.update(`${props.join('\t')}\n`);
    }
  }
  return hash.digest('hex').slice(0, 32);
}
