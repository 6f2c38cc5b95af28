// Picks the address a new hotspot client gets when a test does not give
// one: the first address of the server's pool no active session holds.
import type { SimRecord } from './menu-table.js';
import type { RouterState } from './router-state.js';

const FALLBACK = '10.5.50.250';

export function freeHotspotAddress(state: RouterState, server: SimRecord): string {
  const used = new Set(
    state
      .table('/ip/hotspot/active')
      .list()
      .map((r) => r.props.address),
  );
  const pool = state.table('/ip/pool').findBy('name', server.props['address-pool'] ?? '');
  for (const range of (pool?.props.ranges ?? '10.5.50.2-10.5.50.254').split(',')) {
    const [from, to] = range.split('-');
    const a = ipToInt(from ?? '');
    const b = ipToInt(to ?? from ?? '');
    if (a === undefined || b === undefined) continue;
    for (let n = a; n <= b; n++) if (!used.has(intToIp(n))) return intToIp(n);
  }
  return FALLBACK;
}

function ipToInt(ip: string): number | undefined {
  const parts = ip.trim().split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}
