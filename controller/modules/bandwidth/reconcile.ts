// One reconciliation pass (docs/bandwidth.md, "Reconciliation"): the routers that waited longest
// are claimed under a lease (two passes, on one instance or two, never work on one router at
// once), their desired state decided, and one `bandwidth.apply` sent through each agent: it reads
// the marked objects and writes only the difference. A router whose agent is away is left as it
// is and counted unreachable; nothing is queued for it. What a pass reads is read for all its
// routers at once (pass-context.ts); a router whose params and digest did not change gets one read
// command (`bandwidth.digest`), and routers whose outcome equals what they held end in one statement.
import { createHash } from 'node:crypto';
import { iso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { CommandParams } from '../../../protocol/index.js';
import { routerDay } from '../usage/index.js';
import { BandwidthAlerts } from './alerts.js';
import { classById } from './classes.js';
import type { BandwidthDeps, ImposedCaps } from './deps.js';
import { desiredState, type Desired } from './desired-state.js';
import type { Journal } from './journal.js';
import { passContext, type RouterContext } from './pass-context.js';
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

const paramsDigest = (params: CommandParams<'bandwidth.apply'>) =>
  createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 32);

type Outcome =
  | { kind: 'reached'; state: 'ON' | 'OFF'; wrote: boolean; digest: string | null }
  | { kind: 'away'; code: string };

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

  #imposed: ImposedCaps | null = null;

  /** The source of imposed caps (a later module hands it over); none until then. */
  useImposedCaps(source: ImposedCaps | null): void {
    this.#imposed = source;
  }

  async pass(limit: number, now: Date): Promise<PassCounters> {
    const token = newId();
    const until = iso(new Date(now.getTime() + this.deps.options.passLeaseMs));
    const rows = await q.claimForPass(this.deps.db, token, iso(now), until, limit);
    const context = await passContext(this.deps, this.#imposed, rows, now);
    const counters = zero();
    const unchanged: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < rows.length) {
        const row = rows[next++]!;
        try {
          if (await this.#one(row, token, now, counters, context.get(row.nas_id)!))
            unchanged.push(row.nas_id);
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
    await q.finishUnchanged(this.deps.db, unchanged, token, iso(now));
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
    const context = (await passContext(this.deps, this.#imposed, [claimed], now)).get(nasId)!;
    if (await this.#one(claimed, token, now, counters, context))
      await q.finishUnchanged(this.deps.db, [nasId], token, iso(now));
    const after = await q.findProgramme(this.deps.db, clientId, nasId);
    return after?.cleanup_pending === 0;
  }

  /**
   * One router of a pass; true when its outcome equals what its row holds (the caller ends those
   * together), false when it wrote its own outcome.
   */
  async #one(
    row: BandwidthProgrammesTable,
    token: string,
    now: Date,
    c: PassCounters,
    ctx: RouterContext,
  ): Promise<boolean> {
    c.traites++;
    const { deps } = this;
    const local = routerDay(now, ctx.timeZone);
    const name = ctx.nas?.shortname ?? 'le routeur';
    const programme = programmeOf(row);
    let desired: Desired = { on: false, capMbps: null, motif: null, peak: null };
    let throttles: BandwidthThrottlesTable[] = [];
    const current = ctx.throttles;
    if (programme.enabled && ctx.nas) {
      desired = desiredState({
        programme,
        day: local.day,
        weekday: local.weekday,
        usage: {
          day: ctx.usage.octetsJour,
          month: ctx.usage.octetsMois,
          twoHours: ctx.usage.octetsDeuxHeures,
          hoursIntoDay: local.hoursIntoDay,
        },
        peakDay: row.peak_day,
        imposedCapMbps: ctx.imposedCapMbps,
      });
      const dayStart = new Date(now.getTime() - Math.floor(local.hoursIntoDay * 60) * 60_000);
      dayStart.setUTCSeconds(0, 0);
      throttles = await this.#targeting.decide(row, programme, local.day, dayStart, current, ctx.linked);
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
    const digest = paramsDigest(params);
    const outcome = ctx.linked
      ? await this.#bring(row, params, digest)
      : { kind: 'away' as const, code: 'ROUTER_UNREACHABLE' };
    const base = {
      desired_state: desired.on ? ('ON' as const) : ('OFF' as const),
      motif: desired.motif,
      peak_day: desired.peak ? local.day : row.peak_day,
      imposed_cap_mbps: programme.enabled ? ctx.imposedCapMbps : null,
    };
    const sameBase =
      base.desired_state === row.desired_state &&
      base.motif === row.motif &&
      base.peak_day === row.peak_day &&
      base.imposed_cap_mbps === (row.imposed_cap_mbps === null ? null : Number(row.imposed_cap_mbps));
    if (outcome.kind === 'away') {
      c.injoignables++;
      if (sameBase && row.in_error === 1 && row.error_code === outcome.code) return true;
      await q.finishPass(deps.db, row.nas_id, token, {
        ...base,
        checked_at: iso(now),
        last_pass_at: iso(now),
        in_error: 1,
        error_code: outcome.code,
      });
      if (row.in_error === 0) {
        await this.journal.record(
          row.client_id,
          row.nas_id,
          'ROUTER_UNREACHABLE',
          { motif: outcome.code },
          name,
        );
        await this.#alerts.send(row.client_id, row.nas_id, 'ROUTER_UNREACHABLE', name, ctx.timeZone);
      }
      return false;
    }
    if (outcome.wrote) c.poses++;
    else c.conformes++;
    const before = row.observed_state ?? 'OFF';
    if (outcome.state !== before) c.bascules++;
    const released = current.filter((t) => !throttles.some((n) => n.username === t.username));
    const added = throttles.filter((t) => !current.some((o) => o.username === t.username));
    const checkedDay = row.checked_at ? routerDay(new Date(row.checked_at), ctx.timeZone).day : null;
    const newCappedDay =
      outcome.state === 'ON' && (before !== 'ON' || row.in_error === 1 || checkedDay !== local.day);
    const reached = {
      ...base,
      observed_state: outcome.state,
      in_error: 0,
      error_code: null,
      cleanup_pending: 0,
      params_digest: outcome.digest === null ? null : digest,
      router_digest: outcome.digest,
    };
    if (
      sameBase &&
      !newCappedDay &&
      released.length === 0 &&
      added.length === 0 &&
      row.observed_state === reached.observed_state &&
      row.in_error === 0 &&
      row.cleanup_pending === 0 &&
      row.params_digest === reached.params_digest &&
      row.router_digest === reached.router_digest
    )
      return true;
    const kept = await q.finishPass(deps.db, row.nas_id, token, {
      ...reached,
      checked_at: iso(now),
      last_pass_at: iso(now),
    });
    if (!kept) return false;
    c.usagers_liberes += released.length;
    c.usagers_brides += added.length;
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
    if (newCappedDay) await q.markCappedDay(deps.db, row.client_id, row.nas_id, local.day);
    if (outcome.state === 'ON' && before !== 'ON') {
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
        ctx.timeZone,
      );
    } else if (outcome.state === 'OFF' && before === 'ON') {
      await this.journal.record(row.client_id, row.nas_id, 'THROTTLE_OFF', {}, name);
      await this.#alerts.send(row.client_id, row.nas_id, 'THROTTLE_OFF', name, ctx.timeZone);
    }
    return false;
  }

  // Brings the router to `params`. When they are the ones last applied and the router answered a
  // digest then, a read of its digest comes first: equal means it still holds them, nothing is
  // sent or written; otherwise (or without a digest) the whole plan goes in `bandwidth.apply`.
  async #bring(
    row: BandwidthProgrammesTable,
    params: CommandParams<'bandwidth.apply'>,
    digest: string,
  ): Promise<Outcome> {
    const { deps } = this;
    const target = { clientId: row.client_id, allocationId: row.allocation_id };
    const away = (o: { kind: string; fault?: { code: string } }): Outcome => ({
      kind: 'away',
      code: o.kind === 'refused' && o.fault ? o.fault.code : 'ROUTER_UNREACHABLE',
    });
    if (row.params_digest === digest && row.router_digest !== null && row.in_error === 0) {
      const read = await deps.runner.run(target, 'bandwidth.digest', {}, deps.options.commandWaitMs);
      if (read.kind !== 'done') return away(read);
      if (read.output.digest === row.router_digest)
        return {
          kind: 'reached',
          state: params.cap !== null ? 'ON' : 'OFF',
          wrote: false,
          digest: row.router_digest,
        };
    }
    const applied = await deps.runner.run(target, 'bandwidth.apply', params, deps.options.commandWaitMs);
    if (applied.kind !== 'done') return away(applied);
    const out = applied.output;
    return {
      kind: 'reached',
      state: out.state,
      wrote: out.added + out.updated + out.removed > 0,
      digest: out.digest ?? null,
    };
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
