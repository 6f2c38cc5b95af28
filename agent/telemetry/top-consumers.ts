// The hotspot clients pulling the most right now: each session's download (`bytes-out` of
// /ip/hotspot/active, what the router sent to the client) between two reads, as bits per second.
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsInteger } from '../routeros/ros-values.js';

export interface TopConsumer {
  username: string;
  ip: string;
  rx_bps: number;
}

/** Consumers listed per point. */
export const TOP_CONSUMERS = 5;

export class ConsumerMeter {
  /** Last read per session: its byte count and the monotonic time of the read. */
  #last = new Map<string, { bytes: number; atMs: number }>();

  /** Reads the sessions now; the rates need a previous read of the same session (none the first time). */
  async read(router: RouterConnection, nowMs: number, call: RouterCallOptions = {}): Promise<TopConsumer[]> {
    const rows = await router.print('/ip/hotspot/active', {
      ...call,
      proplist: ['.id', 'user', 'address', 'bytes-out'],
    });
    const next = new Map<string, { bytes: number; atMs: number }>();
    const rates: TopConsumer[] = [];
    for (const row of rows) {
      const bytes = parseRouterOsInteger(row['bytes-out']);
      const user = row.user ?? '';
      const ip = row.address ?? '';
      if (bytes === undefined || user === '' || ip === '') continue;
      // A session id is reused after a reboot: the user and address make the key safer.
      const key = `${row['.id'] ?? ''}|${user}|${ip}`;
      next.set(key, { bytes, atMs: nowMs });
      const prev = this.#last.get(key);
      const seconds = prev ? (nowMs - prev.atMs) / 1000 : 0;
      if (!prev || seconds <= 0 || bytes < prev.bytes) continue;
      const bps = Math.round(((bytes - prev.bytes) * 8) / seconds);
      if (bps > 0) rates.push({ username: user, ip, rx_bps: bps });
    }
    this.#last = next;
    return rates.sort((a, b) => b.rx_bps - a.rx_bps).slice(0, TOP_CONSUMERS);
  }
}
