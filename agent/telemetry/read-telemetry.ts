// The periodic health sample sent as a `telemetry` report.
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsDuration, parseRouterOsInteger } from '../routeros/ros-values.js';
import { findWanInterface } from '../routeros/wan-interface.js';

export interface RouterTelemetry {
  /** Percent, 0–100. */
  cpu_load: number;
  free_memory_bytes: number;
  total_memory_bytes: number;
  uptime_seconds: number;
  /** Entries in /ip/hotspot/active: people online right now. */
  active_hotspot_sessions: number;
  /** The WAN interface's byte counters (the controller's usage store); absent when not readable. */
  wan?: { interface: string; rx_bytes: number; tx_bytes: number };
  /** The router clock's zone (`time-zone-name`); absent when not set. */
  time_zone?: string;
}

/** Reads one sample: /system/resource and a router-side count of /ip/hotspot/active. */
export async function readTelemetry(
  router: RouterConnection,
  signal?: AbortSignal,
): Promise<RouterTelemetry> {
  const call = signal ? { signal } : {};
  const [resources, active] = await Promise.all([
    router.print('/system/resource', {
      ...call,
      proplist: ['cpu-load', 'free-memory', 'total-memory', 'uptime'],
    }),
    router.count('/ip/hotspot/active', undefined, call),
  ]);
  const resource = resources[0] ?? {};
  // One after the other: these extras never compete with the health sample on a busy router.
  const wan = await readWan(router, call);
  const zone = await readZone(router, call);
  return {
    ...(wan ? { wan } : {}),
    ...(zone ? { time_zone: zone } : {}),
    cpu_load: parseRouterOsInteger(resource['cpu-load']) ?? 0,
    free_memory_bytes: parseRouterOsInteger(resource['free-memory']) ?? 0,
    total_memory_bytes: parseRouterOsInteger(resource['total-memory']) ?? 0,
    uptime_seconds: Math.floor(parseRouterOsDuration(resource.uptime ?? '') ?? 0),
    active_hotspot_sessions: active,
  };
}

// Usage counting is a bonus of the sample: a router that cannot say its WAN still reports its health.
async function readWan(
  router: RouterConnection,
  call: { signal?: AbortSignal },
): Promise<RouterTelemetry['wan'] | undefined> {
  try {
    const name = await findWanInterface(router, call);
    if (!name) return undefined;
    const [iface] = await router.print('/interface', {
      ...call,
      where: { name },
      proplist: ['rx-byte', 'tx-byte'],
    });
    const rx = parseRouterOsInteger(iface?.['rx-byte']);
    const tx = parseRouterOsInteger(iface?.['tx-byte']);
    return rx === undefined || tx === undefined ? undefined : { interface: name, rx_bytes: rx, tx_bytes: tx };
  } catch {
    return undefined;
  }
}

async function readZone(
  router: RouterConnection,
  call: { signal?: AbortSignal },
): Promise<string | undefined> {
  try {
    const [clock] = await router.print('/system/clock', { ...call, proplist: ['time-zone-name'] });
    const zone = clock?.['time-zone-name']?.trim();
    return zone && zone !== 'manual' ? zone : undefined;
  } catch {
    return undefined;
  }
}
