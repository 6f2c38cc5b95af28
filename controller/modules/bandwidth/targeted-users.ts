// Which users get the individual cap (docs/bandwidth.md, "Targeted users"): pure. Volumes come
// from two sources, RADIUS accounting and the router's own counters (local users); a (user,
// address) pair seen by both counts once, at the larger of the two, never their sum.
import { GB } from './desired-state.js';

export type VolumeSource = 'RADIUS' | 'ROUTEUR';

export interface PairVolume {
  username: string;
  address: string;
  bytes: number;
  source: VolumeSource;
}

export interface UserVolume {
  username: string;
  bytes: number;
  /** At most 16, the largest first: one queue carries at most 16 addresses. */
  addresses: string[];
  sources: VolumeSource[];
}

export const MAX_ADDRESSES_PER_USER = 16;

/** Per user, the sum over addresses of the larger source of each (user, address) pair. */
export function userVolumes(pairs: readonly PairVolume[]): UserVolume[] {
  const best = new Map<string, PairVolume>();
  for (const p of pairs) {
    const key = `${p.username}\u0000${p.address}`;
    const seen = best.get(key);
    if (!seen || p.bytes > seen.bytes) best.set(key, p);
  }
  const users = new Map<string, { bytes: number; pairs: PairVolume[] }>();
  for (const p of best.values()) {
    const u = users.get(p.username) ?? { bytes: 0, pairs: [] };
    u.bytes += p.bytes;
    u.pairs.push(p);
    users.set(p.username, u);
  }
  return [...users].map(([username, u]) => {
    const ordered = u.pairs.sort((a, b) => b.bytes - a.bytes || a.address.localeCompare(b.address));
    return {
      username,
      bytes: u.bytes,
      addresses: ordered.slice(0, MAX_ADDRESSES_PER_USER).map((p) => p.address),
      sources: [...new Set(ordered.map((p) => p.source))].sort(),
    };
  });
}

/** Users over the quota, the largest first, at most `max`. */
export function usersToThrottle(volumes: readonly UserVolume[], quotaGb: number, max: number): UserVolume[] {
  return volumes
    .filter((v) => v.bytes > quotaGb * GB)
    .sort((a, b) => b.bytes - a.bytes || a.username.localeCompare(b.username))
    .slice(0, max);
}
