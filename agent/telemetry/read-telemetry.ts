// The periodic health sample sent as a `telemetry` report. The WAN counters are not in it: they
// travel with the network-quality points (qoe-collector.ts), the usage store's one source of them.
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsDuration, parseRouterOsInteger } from '../routeros/ros-values.js';

export interface RouterTelemetry {
  /** Percent, 0–100. */
  cpu_load: number;
  free_memory_bytes: number;
  total_memory_bytes: number;
  uptime_seconds: number;
  /** Entries in /ip/hotspot/active: people online right now. */
  active_hotspot_sessions: number;
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
  // After the sample: the zone never competes with it on a busy router.
  const zone = await readZone(router, call);
  return {
    ...(zone ? { time_zone: zone } : {}),
    cpu_load: parseRouterOsInteger(resource['cpu-load']) ?? 0,
    free_memory_bytes: parseRouterOsInteger(resource['free-memory']) ?? 0,
    total_memory_bytes: parseRouterOsInteger(resource['total-memory']) ?? 0,
    uptime_seconds: Math.floor(parseRouterOsDuration(resource.uptime ?? '') ?? 0),
    active_hotspot_sessions: active,
  };
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
