// A hotspot user profile as the live-profiles route answers it: RouterOS's own property names
// (`rate-limit`, `shared-users`, `session-timeout`), durations in RouterOS's notation.
import type { HotspotProfile } from '../../../protocol/index.js';

export type RouterProfileView = Record<string, string>;

const UNITS: [string, number][] = [
  ['w', 604_800],
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/** Seconds in RouterOS's duration notation: 90061 → `1d1h1m1s`. */
export function routerOsDuration(seconds: number): string {
  let rest = Math.floor(seconds);
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out || '0s';
}

export function routerProfileView(p: HotspotProfile): RouterProfileView {
  const view: RouterProfileView = { name: p.name };
  if (p.rate_limit !== undefined) view['rate-limit'] = p.rate_limit;
  if (p.shared_users !== undefined) view['shared-users'] = String(p.shared_users);
  if (p.session_timeout !== undefined) view['session-timeout'] = routerOsDuration(p.session_timeout);
  return view;
}
