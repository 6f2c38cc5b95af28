// One reconciliation pass (docs/bandwidth.md, "Reconciliation"): the routers that waited longest
// are claimed under a lease (two passes, on one instance or two, never work on one router at
// once), their desired state decided, and one `bandwidth.apply` sent through each agent: it reads
// the marked objects and writes only the difference. A router whose agent is away is left as it
// is and counted unreachable; nothing is queued for it.
import { createHash } from 'node:crypto';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { CommandParams } from '../../../protocol/index.js';
import { routerDay } from '../usage/index.js';
import { BandwidthAlerts } from './alerts.js';
import { classById } from './classes.js';
import type { BandwidthDeps } from './deps.js';
import { desiredState, type Desired } from './desired-state.js';
import type { Journal } from './journal.js';
import type { Preferences } from './preferences.js';
import { programmeOf } from './programme-view.js';
import * as q from './queries.js';
import type { BandwidthProgrammesTable, BandwidthThrottlesTable } from './tables.js';
import { Targeting } from './targeting.js';

/** The counters of a pass; docs/bandwidth.md defines each. */
export interface PassCounters {
  traites: number;
  poses: number;
  bascules: number;
  conformes: number;
  inchanges: number;
  injoignables: number;
  usagers_brides: number;
  usagers_liberes: number;
}

const zero = (): PassCounters => ({
  traites: 0,
  poses: 0,
  bascules: 0,
  conformes: 0,
  inchanges: 0,
  injoignables: 0,
  usagers_brides: 0,
  usagers_liberes: 0,
});

/** A user's queue key on the router: short, stable, and free of the characters a name may hold. */
export const userKey = (username: string) => createHash('sha256').update(username).digest('hex').slice(0, 12);

const OFF_PARAMS: CommandParams<'bandwidth.apply'> = { cap: null, classes: [], users: [] };

export class Reconciler {
  readonly #alerts: BandwidthAlerts;
  readonly #targeting: Targeting;

  constructor(
    private readonly deps: BandwidthDeps,
    private readonly journal: Journal,
    preferences: Preferences,
  ) {
    this.#alerts = new BandwidthAlerts(deps, preferences);
    this.#targeting = new Targeting(deps);
  }

  async pass(limit: number, now: Date): Promise<PassCounters> {
    const token = newId();
    const until = iso(new Date(now.getTime() + this.deps.options.passLeaseMs));
    const rows = await q.claimForPass(this.deps.db, token, iso(now), until, limit);
    const links = await this.deps.links.linksOf(rows.map((r) => r.allocation_id));
    const connected = new Set([...links].filter(([, l]) => l.link_state === 'CONNECTED').map(([id]) => id));
    const counters = zero();
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        try {
          await this.#one(row, token, now, counters, connected.has(row.allocation_id));
        } catch (err) {
          this.deps.logger.error(
            { nasId: row.nas_id, err: (err as Error).message },
            'bandwidth pass failed on a router',
          );
          await q
            .finishPass(this.deps.db, row.nas_id, token, { last_pass_at: iso(now) })
            .catch(() => undefined);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.options.concurrency, rows.length) }, worker));
    return counters;
  }

  /** Right after a disable: removes the marked objects now when the agent is there. */
  async cleanNow(clientId: string, nasId: string): Promise<boolean> {
    const row = await q.findProgramme(this.deps.db, clientId, nasId);
    if (!row || row.cleanup_pending === 0) return true;
    const now = this.deps.clock.now();
    const token = newId();
    const claimed = await q.claimOne(
      this.deps.db,
      nasId,
      token,
      iso(now),
      iso(new Date(now.getTime() + this.deps.options.passLeaseMs)),
    );
    if (!claimed) return false;
    const counters = zero();
    const link = (await this.deps.links.linksOf([claimed.allocation_id])).get(claimed.allocation_id);
    await this.#one(claimed, token, now, counters, link?.link_state === 'CONNECTED');
    const after = await q.findProgramme(this.deps.db, clientId, nasId);
    return after?.cleanup_pending === 0;
  }

  async #one(
    row: BandwidthProgrammesTable,
    token: string,
    now: Date,
    c: PassCounters,
    linked: boolean,
  ): Promise<void> {
    c.traites++;
    const { deps } = this;
    const timeZone = await deps.usage.timeZone(row.allocation_id);
    const local = routerDay(now, timeZone);
    const nas = await deps.nas.findLive(row.client_id, row.nas_id);
    const name = nas?.shortname ?? 'le routeur';
    const programme = programmeOf(row);
    let desired: Desired = { on: false, capMbps: null, motif: null, peak: null };
    let throttles: BandwidthThrottlesTable[] = [];
    const current = await q.listThrottles(deps.db, row.client_id, row.nas_id);
    if (programme.enabled && nas) {
      const usage = await deps.usage.totals(row.client_id, row.allocation_id, now);
      desired = desiredState({
        programme,
        day: local.day,
        weekday: local.weekday,
        usage: {
          day: usage.octetsJour,
          month: usage.octetsMois,
          twoHours: usage.octetsDeuxHeures,
          hoursIntoDay: local.hoursIntoDay,
        },
        peakDay: row.peak_day,
      });
      const dayStart = new Date(now.getTime() - Math.floor(local.hoursIntoDay * 60) * 60_000);
      dayStart.setUTCSeconds(0, 0);
      throttles = await this.#targeting.decide(row, programme, local.day, dayStart, current, linked);
    }
    if (row.desired_state === (desired.on ? 'ON' : 'OFF')) c.inchanges++;
    const params: CommandParams<'bandwidth.apply'> = desired.on
      ? {
          cap: {
            limit_kbps: Math.max(1, Math.round(desired.capMbps! * 1000)),
            essential_share: programme.essential_share,
          },
          classes: programme.essential_classes.flatMap((id) => {
            const cls = classById(id);
            return cls ? [{ id, ranges: [...cls.ranges] }] : [];
          }),
          users: usersParam(throttles),
        }
      : { ...OFF_PARAMS, users: usersParam(throttles) };

    const outcome = linked
      ? await deps.runner.run(
          { clientId: row.client_id, allocationId: row.allocation_id },
          'bandwidth.apply',
          params,
          deps.options.commandWaitMs,
        )
      : null;
    const base = {
      desired_state: desired.on ? ('ON' as const) : ('OFF' as const),
      motif: desired.motif,
      peak_day: desired.peak ? local.day : row.peak_day,
      checked_at: iso(now),
      last_pass_at: iso(now),
    };
    if (!outcome || outcome.kind !== 'done') {
      c.injoignables++;
      await q.finishPass(deps.db, row.nas_id, token, {
        ...base,
        in_error: 1,
        error_code: outcome?.kind === 'refused' ? outcome.fault.code : 'ROUTER_UNREACHABLE',
      });
      if (row.in_error === 0) {
        await this.journal.record(
          row.client_id,
          row.nas_id,
          'ROUTER_UNREACHABLE',
          { motif: outcome?.kind === 'refused' ? outcome.fault.code : 'ROUTER_UNREACHABLE' },
          name,
        );
        await this.#alerts.send(row.client_id, row.nas_id, 'ROUTER_UNREACHABLE', name, timeZone);
      }
      return;
    }
    const out = outcome.output;
    if (out.added + out.updated + out.removed > 0) c.poses++;
    else c.conformes++;
    const before = row.observed_state ?? 'OFF';
    if (out.state !== before) c.bascules++;
    const kept = await q.finishPass(deps.db, row.nas_id, token, {
      ...base,
      observed_state: out.state,
      in_error: 0,
      error_code: null,
      cleanup_pending: programme.enabled ? 0 : 0,
    });
    if (!kept) return;
    const released = current.filter((t) => !throttles.some((n) => n.username === t.username));
    const added = throttles.filter((t) => !current.some((o) => o.username === t.username));
    c.usagers_liberes += released.length;
    c.usagers_brides += added.length;
    // Written only when the set changed: a pass over an unchanged router writes just its outcome.
    if (released.length > 0 || added.length > 0)
      await q.replaceThrottles(deps.db, row.client_id, row.nas_id, throttles);
    for (const t of added) {
      await this.journal.record(
        row.client_id,
        row.nas_id,
        'USER_THROTTLED',
        {
          username: t.username,
          observe_gb: Math.round((Number(t.observed_bytes) / 1e9) * 100) / 100,
          adresses: JSON.parse(t.framed_ips) as string[],
          reason: { sources: JSON.parse(t.sources) as string[] },
        },
        name,
      );
    }
    const checkedDay = row.checked_at ? routerDay(new Date(row.checked_at), timeZone).day : null;
    if (out.state === 'ON' && (before !== 'ON' || row.in_error === 1 || checkedDay !== local.day))
      await q.markCappedDay(deps.db, row.client_id, row.nas_id, local.day);
    if (out.state === 'ON' && before !== 'ON') {
      await this.journal.record(
        row.client_id,
        row.nas_id,
        'THROTTLE_ON',
        {
          motif: desired.motif,
          limit_mbps: desired.capMbps,
          ...(desired.peak ? { mesures: { acceleration_pct: desired.peak.acceleration_pct } } : {}),
        },
        name,
      );
      await this.#alerts.send(
        row.client_id,
        row.nas_id,
        desired.motif === 'PIC_DE_CONSOMMATION' ? 'PEAK' : 'THROTTLE_ON',
        name,
        timeZone,
      );
    } else if (out.state === 'OFF' && before === 'ON') {
      await this.journal.record(row.client_id, row.nas_id, 'THROTTLE_OFF', {}, name);
      await this.#alerts.send(row.client_id, row.nas_id, 'THROTTLE_OFF', name, timeZone);
    }
  }
}

function usersParam(
  throttles: readonly BandwidthThrottlesTable[],
): CommandParams<'bandwidth.apply'>['users'] {
  return throttles.map((t) => ({
    key: userKey(t.username),
    limit_kbps: Math.max(1, Math.round(Number(t.limit_mbps) * 1000)),
    addresses: JSON.parse(t.framed_ips) as string[],
  }));
}
