// `--qoe-interval` and `--qoe-targets` (TICKETNET_QOE_INTERVAL_S, TICKETNET_QOE_TARGETS) as the
// collector takes them.
import { isIPv4 } from 'node:net';
import { ConfigError } from '../config.js';
import { DEFAULT_QOE_TARGETS, QOE_MAX_INTERVAL_MS, QOE_MIN_INTERVAL_MS } from './qoe-collector.js';

export interface QoeSettings {
  intervalMs: number;
  targets: string[];
}

/** Seconds between two points (15 to 900) and the IPv4 hosts to ping (comma-separated, 1 to 8). */
export function qoeSettings(intervalSeconds: string, targets: string | undefined): QoeSettings {
  const min = QOE_MIN_INTERVAL_MS / 1000;
  const max = QOE_MAX_INTERVAL_MS / 1000;
  const seconds = Number(intervalSeconds);
  if (!/^\d+$/.test(intervalSeconds.trim()) || seconds < min || seconds > max)
    throw new ConfigError(
      `--qoe-interval must be a whole number of seconds from ${min} to ${max}, not "${intervalSeconds}"`,
    );
  const list =
    targets === undefined || targets.trim() === ''
      ? [...DEFAULT_QOE_TARGETS]
      : targets.split(',').map((t) => t.trim());
  if (list.length > 8 || list.some((t) => !isIPv4(t)))
    throw new ConfigError(`--qoe-targets must be 1 to 8 comma-separated IPv4 addresses, not "${targets}"`);
  return { intervalMs: seconds * 1000, targets: [...new Set(list)] };
}
