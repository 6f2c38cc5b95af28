// Periodic reports, all through the outbox so none is lost while the link is down:
// `telemetry` every 5 minutes, `facts` hourly and after each (re)connect.
import { errorFields, type AgentLogger } from '../logger.js';
import { faultFromError } from '../commands/fault-from-error.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { readFacts } from '../routeros/router-tasks.js';
import type { Outbox, ReportKind } from '../state/outbox.js';
import { readTelemetry } from './read-telemetry.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

export interface ReportSchedulerOptions {
  outbox: Outbox;
  router: RouterConnection;
  /** Called after a report is stored, so the link sends it. */
  notify: () => void;
  logger: AgentLogger;
  telemetryIntervalMs?: number;
  factsIntervalMs?: number;
  /**
   * Smallest gap between two facts reports: a flapping link must not fill the outbox with
   * identical facts (default 60 s).
   */
  factsMinSpacingMs?: number;
  /** Members a facts report carries besides the router's facts (the agent's own, e.g. its relay). */
  extraFacts?: () => Record<string, unknown>;
  now?: () => Date;
}

export const TELEMETRY_INTERVAL_MS = 5 * 60 * 1000;
export const FACTS_INTERVAL_MS = 60 * 60 * 1000;

export class ReportScheduler {
  readonly #o: ReportSchedulerOptions;
  readonly #now: () => Date;
  readonly #timers: NodeJS.Timeout[] = [];
  #lastFacts = Number.NEGATIVE_INFINITY;
  #pending = new Set<Promise<void>>();
  /** A periodic telemetry sample is under way. */
  #sampling = false;
  /** Aborted by stop(): a router read under way is let go (a router that does not answer would hold the stop up). */
  readonly #stopping = new AbortController();

  constructor(options: ReportSchedulerOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  start(): void {
    this.#timers.push(
      setInterval(() => {
        // A router slower than the period: one sample at a time, not a pile of reads waiting on it.
        if (this.#sampling) return;
        this.#sampling = true;
        this.#track(this.reportTelemetry().finally(() => (this.#sampling = false)));
      }, this.#o.telemetryIntervalMs ?? TELEMETRY_INTERVAL_MS),
      setInterval(() => this.#track(this.reportFacts(true)), this.#o.factsIntervalMs ?? FACTS_INTERVAL_MS),
    );
  }

  /** The link came up: facts, unless some were stored very recently. */
  onConnected(): void {
    this.#track(this.reportFacts(false));
  }

  /** Stops the timers and lets a router read under way go; a report being written is waited for. */
  async stop(): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    this.#stopping.abort();
    await Promise.all(this.#pending);
  }

  /** Stores a telemetry report: the sample, or the router fault when it could not be read. */
  async reportTelemetry(): Promise<void> {
    let data: Record<string, unknown>;
    const signal = this.#stopping.signal;
    if (signal.aborted) return;
    try {
      data = { router_reachable: true, ...(await readTelemetry(this.#o.router, signal)) };
    } catch (err) {
      // Stopped while reading: nothing was learnt about the router.
      if (signal.aborted) return;
      // An unreachable router is exactly what the controller needs to hear about.
      const fault = faultFromError(err);
      data = { router_reachable: false, fault_code: fault.code, fault_message: fault.message };
    }
    await this.#store('telemetry', data);
  }

  /** Stores a facts report (router.facts output); nothing when the router cannot be read. */
  async reportFacts(force: boolean): Promise<void> {
    // A gap measured on the monotonic clock: a wall clock stepped back (NTP on a router that booted
    // at a default date) would otherwise hold facts back for as long as the step.
    const now = monotonicMs();
    if (!force && now - this.#lastFacts < (this.#o.factsMinSpacingMs ?? 60_000)) return;
    const signal = this.#stopping.signal;
    if (signal.aborted) return;
    this.#lastFacts = now;
    try {
      const facts = await readFacts(this.#o.router, { signal });
      await this.#store('facts', { ...facts, ...this.#o.extraFacts?.() });
    } catch (err) {
      if (signal.aborted) return;
      this.#lastFacts = Number.NEGATIVE_INFINITY;
      this.#o.logger.warn({ fault: faultFromError(err) }, 'facts report skipped: router not readable');
    }
  }

  async #store(kind: ReportKind, data: Record<string, unknown>): Promise<void> {
    try {
      const report = await this.#o.outbox.add(kind, data, this.#now());
      // One line per report: what the controller should end up holding can be counted from the log.
      this.#o.logger.info({ kind, id: report.id }, 'report stored');
      this.#o.notify();
    } catch (err) {
      this.#o.logger.error({ kind, ...errorFields(err) }, 'could not store report in the outbox');
    }
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }
}
