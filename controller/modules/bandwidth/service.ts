// The bandwidth module's API: the programme a manager records (PUT, GET, DELETE), the journal,
// and the reconciliation that holds routers to it (reconcile.ts). Routers are reached only through
// their agent; a disable is recorded first and cleaned on the router when it can be.
import { AppError } from '../../core/app-error.js';
import { iso } from '../../core/clock.js';
import { routerDay } from '../usage/index.js';
import { classesView } from './classes.js';
import type { BandwidthDeps, ImposedCaps } from './deps.js';
import { FleetAndImpact } from './fleet-impact.js';
import { Journal } from './journal.js';
import { Preferences } from './preferences.js';
import { checkProgramme, requireNasId } from './programme-rules.js';
import {
  programmeColumns,
  programmeOf,
  programmeState,
  sameProgramme,
  throttleView,
} from './programme-view.js';
import * as q from './queries.js';
import { Reconciler, type PassCounters } from './reconcile.js';

const notOwned = () => new AppError('BW_NAS_NOT_OWNED', 'No router of yours has this nas_id');

export class BandwidthService {
  readonly journal: Journal;
  readonly preferences: Preferences;
  readonly #reconciler: Reconciler;
  readonly #reports: FleetAndImpact;

  constructor(private readonly deps: BandwidthDeps) {
    this.journal = new Journal(deps.db, deps.clock);
    this.preferences = new Preferences(deps.db, deps.clock);
    this.#reconciler = new Reconciler(deps, this.journal, this.preferences);
    this.#reports = new FleetAndImpact(deps);
  }

  classes() {
    return classesView();
  }

  /**
   * Who may use the programme: an active RADIUS licence (the satellite-router licence gives the
   * same right) and an active monitoring subscription; 403 with the missing licence's code.
   */
  async requireEntitlement(clientId: string): Promise<void> {
    const { licences } = this.deps;
    if (!(await licences.status(clientId, 'RADIUS')).active) {
      if (!(await licences.status(clientId, 'SATELLITE_X')).active)
        await licences.requireActive(clientId, 'RADIUS');
    }
    await licences.requireActive(clientId, 'MONITORING');
  }

  async put(clientId: string, actorId: string, body: Record<string, unknown>) {
    await this.requireEntitlement(clientId);
    const nasId = requireNasId(body);
    const nas = await this.deps.nas.findLive(clientId, nasId);
    if (!nas) throw notOwned();
    const programme = checkProgramme(body);
    const now = iso(this.deps.clock.now());
    const revision = await this.deps.db.transaction().execute(async (trx) => {
      const current = await q.findProgramme(trx, clientId, nas.id);
      if (current && sameProgramme(programmeOf(current), programme)) return current.revision;
      const next = (current?.revision ?? 0) + 1;
      const columns = { ...programmeColumns(programme), revision: next, updated_at: now };
      // A programme turned off is cleaned from the router by the next pass.
      const cleanup = programme.enabled ? 0 : 1;
      if (current) {
        await q.updateProgramme(trx, clientId, nas.id, {
          ...columns,
          allocation_id: nas.allocation_id,
          cleanup_pending: cleanup,
        });
      } else {
        await q.insertProgramme(trx, {
          nas_id: nas.id,
          client_id: clientId,
          allocation_id: nas.allocation_id,
          ...columns,
          desired_state: 'OFF',
          observed_state: null,
          motif: null,
          peak_day: null,
          checked_at: null,
          in_error: 0,
          error_code: null,
          cleanup_pending: cleanup,
          pass_token: null,
          pass_until: null,
          last_pass_at: '',
          params_digest: null,
          router_digest: null,
          imposed_cap_mbps: null,
        });
      }
      await q.insertRevision(trx, {
        nas_id: nas.id,
        revision: next,
        client_id: clientId,
        programme: JSON.stringify(programme),
        created_at: now,
        created_by: actorId,
      });
      return next;
    });
    return {
      nas_id: nas.id,
      enabled: programme.enabled,
      mode: programme.mode,
      revision,
      application: 'PLANIFIEE' as const,
    };
  }

  async state(clientId: string) {
    await this.requireEntitlement(clientId);
    const now = this.deps.clock.now();
    const rows = await q.listProgrammes(this.deps.db, clientId);
    const throttles = await q.listThrottles(this.deps.db, clientId);
    // Zone and usage from one read of each router's row: read apart, a reading stored between the
    // two showed its bytes under the zone it replaced.
    const usage = await this.deps.usage.totalsMany(
      rows.map((r) => ({ clientId, allocationId: r.allocation_id })),
      now,
    );
    const programmes = [];
    for (const row of rows) {
      const { timeZone, totals } = usage.get(row.allocation_id)!;
      const count = throttles.filter((t) => t.nas_id === row.nas_id).length;
      programmes.push(programmeState(row, timeZone, routerDay(now, timeZone).day, totals, count));
    }
    return { programmes, usagers_brides: throttles.map(throttleView) };
  }

  /** Records the disable at once, then tries the cleanup through the agent (the sweep retries it). */
  async disable(clientId: string, actorId: string, nasId: string) {
    await this.requireEntitlement(clientId);
    const nas = await this.deps.nas.findLive(clientId, nasId);
    const row = nas ? await q.findProgramme(this.deps.db, clientId, nas.id) : undefined;
    if (!nas) throw notOwned();
    if (!row) return { disabled: true, nettoye: true };
    const now = iso(this.deps.clock.now());
    if (row.enabled === 1) {
      const programme = { ...programmeOf(row), enabled: false };
      await this.deps.db.transaction().execute(async (trx) => {
        await q.updateProgramme(trx, clientId, nas.id, {
          enabled: 0,
          cleanup_pending: 1,
          desired_state: 'OFF',
          motif: null,
          revision: row.revision + 1,
          updated_at: now,
        });
        await q.insertRevision(trx, {
          nas_id: nas.id,
          revision: row.revision + 1,
          client_id: clientId,
          programme: JSON.stringify(programme),
          created_at: now,
          created_by: actorId,
        });
      });
    }
    const nettoye = await this.#reconciler.cleanNow(clientId, nas.id);
    return { disabled: true, nettoye };
  }

  activity(
    clientId: string,
    query: { limite: number; avant?: string | undefined; nas_id?: string | undefined },
  ) {
    return this.journal.page(clientId, query.limite, query.avant, query.nas_id);
  }

  /**
   * Where imposed caps come from: the satellite plan's smoothing, a later module, hands its source
   * over when it is built (null takes it back). Each pass asks it once for the routers it took.
   */
  useImposedCaps(source: ImposedCaps | null): void {
    this.#reconciler.useImposedCaps(source);
  }

  /** One reconciliation pass over at most `limit` routers, oldest first. */
  reconcile(limit: number, now: Date = this.deps.clock.now()): Promise<PassCounters> {
    return this.#reconciler.pass(limit, now);
  }

  fleet() {
    return this.#reports.fleet();
  }

  async impact(clientId: string, jours: number, nasId: string | undefined) {
    await this.requireEntitlement(clientId);
    return this.#reports.impact(clientId, jours, nasId);
  }
}
