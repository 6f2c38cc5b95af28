// Takeover of the resellers a local-mode site kept on its router (docs/api/resellers.md): the agent reads the accounts,
// then each reseller is written in its own short transaction (no transaction spans the router
// read); the resellers service writes the reseller, its balance and its ledger lines in that
// transaction, this module its router link. Replays are safe: movements are keyed by their `txn_…`
// id, the opening balance by the router serial, and a reseller that exists centrally is never
// overwritten — the centre is authoritative once it holds a reseller; differences are reported.
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../core/app-error.js';
import type { AgentCommandRunner } from '../../hub/index.js';
import type { Logger } from '../../logger.js';
import type { ImportTarget, ImportedLine, ResellersService } from '../resellers/index.js';
import {
  groupTags,
  planAccounts,
  purchases,
  runningBalances,
  type AccountPlan,
  type PlannedLine,
  type SkipReason,
} from './plan.js';
import * as tq from './queries.js';

/** The creation defaults of a reseller, given to resellers the router had no caps for. */
const DEFAULT_MAX_BATCH_SIZE = 100;
const DEFAULT_MAX_USERS_TOTAL = 1000;
/** 15,000 hotspot users are read in one pass; two minutes is generous for a small router. */
const EXPORT_TIMEOUT_MS = 120_000;

export type DifferenceReason =
  /** Taken over from this router before; the balances have moved apart since (central changes win). */
  | 'CENTRAL_BALANCE_DIFFERS'
  /** Exists centrally but was not taken over from this router: nothing imported, nothing changed. */
  | 'NOT_TAKEN_OVER'
  /** Deleted centrally: not brought back. */
  | 'DELETED_CENTRALLY'
  /** The router's new movements would take the central balance below zero: none imported. */
  | 'WOULD_OVERDRAW';

export interface Difference {
  username: string;
  router_balance: number;
  central_balance: number;
  /** central − router, in XOF. */
  gap: number;
  reason: DifferenceReason;
}

export interface ResellerOutcome {
  username: string | null;
  router_name: string;
  status: 'CREATED' | 'EXISTING' | 'SKIPPED';
  skip_reason: SkipReason | null;
  router_balance: number | null;
  /** The central balance after the takeover (null when skipped). */
  balance: number | null;
  /** The opening balance written for older movements the router lost (created only). */
  opening_xof: number | null;
  movements_imported: number;
  movements_skipped: number;
  warnings: string[];
}

export interface TakeoverReport {
  allocation_id: string;
  router_serial: string;
  imported: {
    resellers_created: number;
    resellers_existing: number;
    resellers_skipped: number;
    movements_imported: number;
    movements_skipped: number;
  };
  differences: Difference[];
  /** Tag names (lowercased, without spaces) that name no reseller; never created. */
  unknown_tags: string[];
  tags: { name: string; tickets: number; reseller: boolean }[];
  resellers: ResellerOutcome[];
}

interface Step {
  outcome: ResellerOutcome;
  difference?: Difference;
}

export class TakeoverService {
  /** Automatic takeovers under way, by allocation: one at a time per router. */
  readonly #automatic = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly resellers: ResellersService,
    private readonly runner: AgentCommandRunner,
    private readonly logger: Logger,
  ) {}

  /**
   * The takeover a router's RADIUS enrolment starts by itself, after the enrolment has answered:
   * it never delays nor fails the enrolment. Its outcome is logged (counts, or the error's code
   * and message); the manager replays it with `POST /v1/radius/resellers/takeover`, which changes
   * nothing when this one went through. A second start while one runs for the router is ignored.
   */
  startAfterEnrolment(clientId: string, allocationId: string): void {
    if (this.#automatic.has(allocationId)) return;
    const work = this.run(clientId, allocationId).then(
      (report) =>
        this.logger.info(
          { clientId, allocationId, routerSerial: report.router_serial, ...report.imported },
          'automatic reseller takeover done',
        ),
      (err: unknown) =>
        this.logger.warn(
          {
            clientId,
            allocationId,
            code: err instanceof AppError ? err.code : 'INTERNAL_ERROR',
            message: (err as Error).message,
          },
          'automatic reseller takeover failed; replay it with POST /v1/radius/resellers/takeover',
        ),
    );
    const tracked = work.finally(() => this.#automatic.delete(allocationId));
    this.#automatic.set(allocationId, tracked);
  }

  /** Resolves once the automatic takeovers under way have ended (shutdown, tests). */
  async settled(): Promise<void> {
    while (this.#automatic.size > 0) await Promise.all(this.#automatic.values());
  }

  async run(clientId: string, allocationId: string): Promise<TakeoverReport> {
    const read = await this.runner.runForRequest(
      { clientId, allocationId },
      'resellers.export',
      {},
      EXPORT_TIMEOUT_MS,
    );
    const report: TakeoverReport = {
      allocation_id: allocationId,
      router_serial: read.serial,
      imported: {
        resellers_created: 0,
        resellers_existing: 0,
        resellers_skipped: 0,
        movements_imported: 0,
        movements_skipped: 0,
      },
      differences: [],
      unknown_tags: [],
      tags: [],
      resellers: [],
    };
    const routerNames = new Set<string>();
    const plans = planAccounts(read.accounts, read.serial);
    for (const [i, result] of plans.entries()) {
      const account = read.accounts[i]!;
      let step: Step;
      if (!result.ok) {
        if (result.username) routerNames.add(result.username);
        step = {
          outcome: {
            username: result.username,
            router_name: result.routerName,
            status: 'SKIPPED',
            skip_reason: result.reason,
            router_balance: account.balance,
            balance: null,
            opening_xof: null,
            movements_imported: 0,
            movements_skipped: account.movements.length,
            warnings: result.warnings,
          },
        };
      } else {
        routerNames.add(result.plan.username);
        step = await this.#takeOne(clientId, allocationId, read.serial, result.plan);
      }
      const { outcome } = step;
      report.resellers.push(outcome);
      if (step.difference) report.differences.push(step.difference);
      report.imported.movements_imported += outcome.movements_imported;
      report.imported.movements_skipped += outcome.movements_skipped;
      if (outcome.status === 'CREATED') report.imported.resellers_created++;
      else if (outcome.status === 'EXISTING') report.imported.resellers_existing++;
      else report.imported.resellers_skipped++;
    }
    // Tags are attribution only: a tag naming no reseller is reported, never turned into one.
    const tags = groupTags(read.tags);
    const central = await this.resellers.existingUsernames(clientId, [...tags.keys()]);
    for (const [name, tickets] of [...tags].sort(([a], [b]) => a.localeCompare(b))) {
      const reseller = routerNames.has(name) || central.has(name);
      report.tags.push({ name, tickets, reseller });
      if (!reseller) report.unknown_tags.push(name);
    }
    return report;
  }

  /** One reseller, one transaction. A creation race lost to a concurrent takeover is retried once. */
  async #takeOne(clientId: string, allocationId: string, serial: string, plan: AccountPlan): Promise<Step> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (trx) => {
          const found = await this.resellers.lockForImport(trx, clientId, plan.username);
          if (!found) return this.#create(trx, clientId, allocationId, serial, plan);
          return this.#replay(trx, found, serial, plan);
        });
      } catch (err) {
        if (attempt === 0 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  async #create(
    trx: Db,
    clientId: string,
    allocationId: string,
    serial: string,
    plan: AccountPlan,
  ): Promise<Step> {
    const now = iso(this.clock.now());
    const lines = plan.openingLine ? [plan.openingLine, ...plan.movements] : plan.movements;
    let balance = 0;
    const ledger = lines.map((line) => {
      balance += line.amount;
      return ledgerLine(line, balance, now);
    });
    // opening + kept movements = router balance by construction; anything else is a bug.
    if (balance !== plan.routerBalance) throw new Error(`takeover of ${plan.username}: ledger ≠ balance`);
    const resellerId = await this.resellers.createImported(
      trx,
      clientId,
      {
        username: plan.username,
        ...plan.identity,
        balance: plan.routerBalance,
        max_batch_size: DEFAULT_MAX_BATCH_SIZE,
        max_users_total: DEFAULT_MAX_USERS_TOTAL,
        total_sales: purchases(plan.movements),
        at: now,
      },
      ledger,
    );
    await tq.insertLink(trx, {
      id: newId(),
      client_id: clientId,
      reseller_id: resellerId,
      router_serial: serial,
      allocation_id: allocationId,
      router_name: plan.routerName,
      router_balance: plan.routerBalance,
      opening_amount: plan.opening,
      movements_imported: plan.movements.length,
      taken_over_at: now,
    });
    return {
      outcome: {
        ...outcomeBase(plan),
        status: 'CREATED',
        balance: plan.routerBalance,
        opening_xof: plan.opening,
        movements_imported: plan.movements.length,
        movements_skipped: 0,
      },
    };
  }

  /**
   * A reseller the centre already holds. Identity, caps, suspension and balance are never
   * overwritten. Only when it was taken over from this very router are the movements the router
   * recorded since (ids not in the ledger yet) added, each as a line that moves the balance.
   */
  async #replay(trx: Db, row: ImportTarget, serial: string, plan: AccountPlan): Promise<Step> {
    const central = row.balance;
    const existing = (movementsSkipped: number, reason?: DifferenceReason, balance = central): Step => ({
      outcome: {
        ...outcomeBase(plan),
        status: 'EXISTING',
        balance,
        opening_xof: null,
        movements_imported: plan.movements.length - movementsSkipped,
        movements_skipped: movementsSkipped,
      },
      ...(reason ? { difference: difference(plan, balance, reason) } : {}),
    });
    if (row.deleted) return existing(plan.movements.length, 'DELETED_CENTRALLY');
    const link = await tq.findLink(trx, row.id, serial);
    if (!link) return existing(plan.movements.length, 'NOT_TAKEN_OVER');

    const known = await this.resellers.importedKeys(
      trx,
      row.id,
      plan.movements.map((m) => m.key),
    );
    const fresh = plan.movements.filter((m) => !known.has(m.key));
    if (fresh.length === 0) {
      return existing(
        plan.movements.length,
        central === plan.routerBalance ? undefined : 'CENTRAL_BALANCE_DIFFERS',
      );
    }
    const balances = runningBalances(central, fresh);
    if (!balances) return existing(plan.movements.length, 'WOULD_OVERDRAW');
    const now = iso(this.clock.now());
    await this.resellers.appendImported(
      trx,
      row,
      fresh.map((line, i) => ledgerLine(line, balances[i]!, now)),
      { sales: purchases(fresh), updatedAt: now },
    );
    const next = balances[balances.length - 1]!;
    return existing(
      plan.movements.length - fresh.length,
      next === plan.routerBalance ? undefined : 'CENTRAL_BALANCE_DIFFERS',
      next,
    );
  }
}

function ledgerLine(line: PlannedLine, balanceAfter: number, now: string): ImportedLine {
  return {
    type: line.type,
    amount: line.amount,
    reason: line.reason,
    key: line.key,
    balanceAfter,
    // Dated when it happened on the router: the ledger is the source for consumption over a period.
    at: line.at ?? now,
  };
}

function outcomeBase(plan: AccountPlan) {
  return {
    username: plan.username,
    router_name: plan.routerName,
    skip_reason: null,
    router_balance: plan.routerBalance,
    warnings: plan.warnings,
  };
}

function difference(plan: AccountPlan, central: number, reason: DifferenceReason): Difference {
  return {
    username: plan.username,
    router_balance: plan.routerBalance,
    central_balance: central,
    gap: central - plan.routerBalance,
    reason,
  };
}
