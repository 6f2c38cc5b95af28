// Network-quality points, one per interval (60 s by default): the link's round trip, jitter and
// loss measured on the router, the WAN interface's cumulative counters with the rates since the
// previous point, and the top hotspot consumers. Each point goes through the outbox as a
// `telemetry` report whose data is `{qoe: point}`, so an outage loses none and they arrive in order;
// the controller hands it to the same ingestion as its HTTP telemetry route.
import { isoTime } from '../../protocol/index.js';
import { errorFields, type AgentLogger } from '../logger.js';
import { readCapabilities } from '../routeros/read-facts.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import type { Outbox } from '../state/outbox.js';
import { measureLinkQuality, type LinkQuality, type PingPlan } from './link-quality.js';
import { ConsumerMeter, type TopConsumer } from './top-consumers.js';
import { readWanCounters, type WanCounters } from './wan-counters.js';

export const QOE_INTERVAL_MS = 60_000;
export const QOE_MIN_INTERVAL_MS = 15_000;
export const QOE_MAX_INTERVAL_MS = 15 * 60_000;
/** Hosts pinged by default: two anycast resolvers, so one outage does not read as a dead link. */
export const DEFAULT_QOE_TARGETS: readonly string[] = ['1.1.1.1', '8.8.8.8'];
const DEFAULT_PING: PingPlan = { count: 5, intervalMs: 200 };

export interface QoePoint {
  observed_at: string;
  rtt_ms: number | null;
  jitter_ms: number | null;
  packet_loss_pct: number | null;
  tx_bps: number | null;
  rx_bps: number | null;
  wan_rx_bytes: number | null;
  wan_tx_bytes: number | null;
  top_consumers: TopConsumer[];
}

export interface QoeCollectorOptions {
  outbox: Outbox;
  router: RouterConnection;
  /** Called after a point is stored, so the link sends it. */
  notify: () => void;
  logger: AgentLogger;
  intervalMs?: number;
  targets?: readonly string[];
  /** Echoes per target of the `/ping` series (default 5, 200 ms apart), jitter's source on every version. */
  ping?: PingPlan;
  now?: () => Date;
}

export class QoeCollector {
  readonly #o: QoeCollectorOptions;
  readonly #now: () => Date;
  readonly #meter = new ConsumerMeter();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lastWan: { counters: WanCounters; atMs: number } | undefined;

  constructor(options: QoeCollectorOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  get intervalMs(): number {
    return this.#o.intervalMs ?? QOE_INTERVAL_MS;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.collect(), this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Takes and stores one point now; a collection still running is waited for, not doubled. */
  collect(): Promise<void> {
    this.#running ??= this.#collect().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #collect(): Promise<void> {
    const at = this.#now();
    const point = await this.#measure(at);
    if (!point) return;
    try {
      const report = await this.#o.outbox.add('telemetry', { qoe: point }, at);
      this.#o.logger.info({ kind: 'telemetry', id: report.id }, 'qoe point stored');
      this.#o.notify();
    } catch (err) {
      this.#o.logger.error(errorFields(err), 'could not store qoe point in the outbox');
    }
  }

  /** One point, or undefined when the router could not be read at all. */
  async #measure(at: Date): Promise<QoePoint | undefined> {
    const { router } = this.#o;
    const targets = this.#o.targets ?? DEFAULT_QOE_TARGETS;
    const failed: string[] = [];
    // Each part once more on failure: the first call after a router reboot finds the old API
    // connection dead, and the second opens a new one.
    const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
      for (let tries = 1; ; tries++) {
        try {
          return await fn();
        } catch (err) {
          if (tries < 2) continue;
          failed.push(what);
          this.#o.logger.warn({ what, ...errorFields(err) }, 'qoe measure failed');
          return undefined;
        }
      }
    };
    const quality = await attempt('quality', () => this.#quality(targets));
    // Rates on the agent's clock, the one that stamps the points (a step of it gives one point
    // without rates, never a negative one).
    const atMs = at.getTime();
    const wan = await attempt('wan', () => readWanCounters(router));
    const consumers = await attempt('consumers', () => this.#meter.read(router, atMs));
    if (failed.length === 3) return undefined;
    const rates = this.#rates(wan, atMs);
    return {
      observed_at: isoTime(at),
      rtt_ms: quality?.rtt_ms ?? null,
      jitter_ms: quality?.jitter_ms ?? null,
      packet_loss_pct: quality?.packet_loss_pct ?? null,
      tx_bps: rates?.tx ?? null,
      rx_bps: rates?.rx ?? null,
      wan_rx_bytes: wan?.rx_bytes ?? null,
      wan_tx_bytes: wan?.tx_bytes ?? null,
      top_consumers: consumers ?? [],
    };
  }

  /** Netwatch ICMP probes where the capability table has them (7.4+), `/ping` for jitter always. */
  async #quality(targets: readonly string[]): Promise<LinkQuality> {
    const { router } = this.#o;
    const caps = await readCapabilities(router);
    return measureLinkQuality(router, targets, {
      netwatchIcmp: caps?.netwatchIcmp ?? false,
      intervalS: Math.round(this.intervalMs / 1000),
      ping: this.#o.ping ?? DEFAULT_PING,
    });
  }

  /** WAN bits per second since the previous point; none the first time or after a counter reset. */
  #rates(wan: WanCounters | undefined, atMs: number): { rx: number; tx: number } | undefined {
    const prev = this.#lastWan;
    this.#lastWan = wan ? { counters: wan, atMs } : undefined;
    if (!wan || !prev || prev.counters.interface !== wan.interface) return undefined;
    const seconds = (atMs - prev.atMs) / 1000;
    const rx = wan.rx_bytes - prev.counters.rx_bytes;
    const tx = wan.tx_bytes - prev.counters.tx_bytes;
    if (seconds <= 0 || rx < 0 || tx < 0) return undefined;
    return { rx: Math.round((rx * 8) / seconds), tx: Math.round((tx * 8) / seconds) };
  }
}
