// What `bandwidth.apply` wants on the router, as RouterOS objects (docs/bandwidth.md): pure.
// Every object carries the comment `ticketnet:bw:<key>`, except queue types, which have no comment
// and are named `tn-bw-…`. Rates are written in bits per second.
import type { CommandParams } from '../../protocol/index.js';

export type BandwidthParams = CommandParams<'bandwidth.apply'>;

export const BW_MARK = 'ticketnet:bw:';
export const BW_TYPE_PREFIX = 'tn-bw-';

export const MENUS = {
  type: '/queue/type',
  list: '/ip/firewall/address-list',
  mangle: '/ip/firewall/mangle',
  tree: '/queue/tree',
  filter: '/ip/firewall/filter',
} as const;

export type MenuKey = keyof typeof MENUS;

export interface PlannedObject {
  /** The comment's key, or the name of a queue type. */
  key: string;
  props: Record<string, string>;
}

export type Plan = Record<MenuKey, PlannedObject[]>;

const bits = (kbps: number) => String(Math.round(kbps) * 1000);

/**
 * The objects for `params`. `wan` is the interface the default route leaves through (direction of
 * the marks); `fasttrack` whether an enabled FastTrack rule exists (the hold rules go before it).
 */
export function bandwidthPlan(params: BandwidthParams, wan: string | null, fasttrack: boolean): Plan {
  const plan: Plan = { type: [], list: [], mangle: [], tree: [], filter: [] };
  const { cap, users } = params;
  if ((!cap && users.length === 0) || wan === null) return plan;
  const obj = (key: string, props: Record<string, string>): PlannedObject => ({
    key,
    props: { ...props, comment: `${BW_MARK}${key}` },
  });
  const mark = (key: string, dir: 'up' | 'down', extra: Record<string, string>, packetMark: string) =>
    obj(`m.${key}.${dir}`, {
      chain: 'forward',
      action: 'mark-packet',
      'new-packet-mark': packetMark,
      passthrough: 'yes',
      ...(dir === 'up' ? { 'out-interface': wan } : { 'in-interface': wan }),
      ...extra,
    });
  const capBits = cap ? bits(cap.limit_kbps) : '0';
  // Parents: the whole router's traffic per direction, at the cap (unlimited while only users are throttled).
  for (const dir of ['down', 'up'] as const) {
    plan.tree.push(obj(`q.${dir}`, { name: `tn-bw-${dir}`, parent: 'global', 'max-limit': capBits }));
  }
  if (cap) {
    for (const dir of ['down', 'up'] as const) {
      plan.type.push({
        key: `${BW_TYPE_PREFIX}pcq-${dir}`,
        props: {
          name: `${BW_TYPE_PREFIX}pcq-${dir}`,
          kind: 'pcq',
          'pcq-classifier': dir === 'down' ? 'dst-address' : 'src-address',
          'pcq-rate': '0',
        },
      });
      plan.mangle.push(mark('rest', dir, {}, `tn-bw-rest-${dir}`));
      plan.tree.push(
        obj(`q.ess.${dir}`, {
          name: `tn-bw-ess-${dir}`,
          parent: `tn-bw-${dir}`,
          'packet-mark': `tn-bw-ess-${dir}`,
          priority: '1',
          'limit-at': bits(cap.limit_kbps * cap.essential_share),
          'max-limit': capBits,
          queue: `${BW_TYPE_PREFIX}pcq-${dir}`,
        }),
        obj(`q.rest.${dir}`, {
          name: `tn-bw-rest-${dir}`,
          parent: `tn-bw-${dir}`,
          'packet-mark': `tn-bw-rest-${dir}`,
          priority: '8',
          'limit-at': '0',
          'max-limit': capBits,
          queue: `${BW_TYPE_PREFIX}pcq-${dir}`,
        }),
      );
    }
  }
  for (const user of users) {
    const list = `tn-bw-u-${user.key}`;
    for (const address of user.addresses)
      plan.list.push(obj(`l.u.${user.key}.${address}`, { list, address }));
    plan.mangle.push(
      mark(`u.${user.key}`, 'up', { 'src-address-list': list }, `${list}-up`),
      mark(`u.${user.key}`, 'down', { 'dst-address-list': list }, `${list}-down`),
    );
    for (const dir of ['down', 'up'] as const) {
      plan.tree.push(
        obj(`q.u.${user.key}.${dir}`, {
          name: `${list}-${dir}`,
          parent: `tn-bw-${dir}`,
          'packet-mark': `${list}-${dir}`,
          priority: '8',
          'limit-at': '0',
          'max-limit': bits(user.limit_kbps),
          queue: 'default-small',
        }),
      );
    }
    if (fasttrack && !cap) {
      plan.filter.push(
        obj(`f.u.${user.key}.up`, hold({ 'src-address-list': list })),
        obj(`f.u.${user.key}.down`, hold({ 'dst-address-list': list })),
      );
    }
  }
  if (cap) {
    // Essential marks come last: with passthrough, the last matching mark wins, so essential
    // traffic keeps its priority even for a throttled user.
    for (const c of params.classes) {
      const list = `tn-bw-c-${c.id}`;
      for (const range of c.ranges) plan.list.push(obj(`l.c.${c.id}.${range}`, { list, address: range }));
      plan.mangle.push(
        mark(`c.${c.id}`, 'up', { 'dst-address-list': list }, 'tn-bw-ess-up'),
        mark(`c.${c.id}`, 'down', { 'src-address-list': list }, 'tn-bw-ess-down'),
      );
    }
    if (fasttrack) plan.filter.push(obj('f.all', hold({})));
  }
  return plan;
}

// Accepting established traffic before the FastTrack rule keeps it off the fast path, so queues see it.
const hold = (extra: Record<string, string>): Record<string, string> => ({
  chain: 'forward',
  action: 'accept',
  'connection-state': 'established,related',
  ...extra,
});
