// Runs named jobs on their cadences. Before a run the instance takes the job's lease row, so with
// several controllers on one PostgreSQL each due run happens once, on whichever instance wins.
import { AppError } from '../core/app-error.js';
import { iso, type Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import { errorFields, type Logger } from '../logger.js';
import { nextRun, type Cadence } from './cadence.js';
import * as leases from './lease-queries.js';

export interface JobDefinition {
  name: string;
  cadence: Cadence;
  /** How long a run may hold the lease before another instance may take over (default 10 min). */
  leaseMs?: number;
  /** Read at each due time; a job whose flag is off is skipped (and rescheduled). */
  enabled?: () => boolean;
  run(now: Date): Promise<unknown>;
}

export interface JobRun {
  name: string;
  status: 'OK' | 'FAILED' | 'SKIPPED';
  started_at: string;
  finished_at: string;
  result?: unknown;
  error?: string;
}

export class Scheduler {
  readonly #jobs = new Map<string, JobDefinition>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly owner: string,
    private readonly logger: Logger,
  ) {}

  register(job: JobDefinition): void {
    if (this.#jobs.has(job.name)) throw new Error(`job ${job.name} registered twice`);
    this.#jobs.set(job.name, job);
  }

  names(): string[] {
    return [...this.#jobs.keys()].sort();
  }

  async init(): Promise<void> {
    const now = this.clock.now();
    for (const job of this.#jobs.values()) {
      await leases.ensureLeaseRow(this.db, job.name, iso(nextRun(job.cadence, now)));
    }
  }

  start(tickMs: number): void {
    this.#timer = setInterval(() => {
      this.#ticking ??= this.tick()
        .then(() => undefined)
        .catch((err) => this.logger.error(errorFields(err, this.logger), 'scheduler tick failed'))
        .finally(() => (this.#ticking = undefined));
    }, tickMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
  }

  /** Runs every due job whose lease this instance wins. */
  async tick(): Promise<JobRun[]> {
    const runs: JobRun[] = [];
    for (const job of this.#jobs.values()) {
      const run = await this.#runLeased(job, true);
      if (run) runs.push(run);
    }
    return runs;
  }

  /** Runs one job now, whatever its schedule; 409 when another run holds the lease. */
  async runNow(name: string): Promise<JobRun> {
    const job = this.#jobs.get(name);
    if (!job) throw new AppError('JOB_NOT_FOUND', `No job named ${name}`);
    const run = await this.#runLeased(job, false);
    if (!run) throw new AppError('JOB_ALREADY_RUNNING', `Job ${name} is already running`);
    return run;
  }

  list() {
    return leases.listLeases(this.db);
  }

  async #runLeased(job: JobDefinition, onlyIfDue: boolean): Promise<JobRun | null> {
    const started = this.clock.now();
    const leaseUntil = iso(new Date(started.getTime() + (job.leaseMs ?? 600_000)));
    if (!(await leases.tryAcquire(this.db, job.name, this.owner, iso(started), leaseUntil, onlyIfDue)))
      return null;
    let run: JobRun;
    if (job.enabled && !job.enabled()) {
      run = { name: job.name, status: 'SKIPPED', started_at: iso(started), finished_at: iso(started) };
    } else {
      try {
        const result = await job.run(started);
        run = {
          name: job.name,
          status: 'OK',
          started_at: iso(started),
          finished_at: iso(this.clock.now()),
          result,
        };
      } catch (err) {
        this.logger.error({ ...errorFields(err, this.logger), job: job.name }, 'job failed');
        const error = err instanceof Error ? err.message : String(err);
        run = {
          name: job.name,
          status: 'FAILED',
          started_at: iso(started),
          finished_at: iso(this.clock.now()),
          error,
        };
      }
    }
    await leases.release(this.db, job.name, this.owner, {
      finishedAt: run.finished_at,
      status: run.status === 'FAILED' ? 'FAILED' : 'OK',
      error: run.error ?? null,
      nextRunAt: iso(nextRun(job.cadence, this.clock.now())),
    });
    return run;
  }
}
