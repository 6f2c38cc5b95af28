import { sql, type CompiledQuery } from 'kysely';
import sinon from 'sinon';
import type { DatabaseHandle, Db } from '../../controller/db/database.js';

export interface PlanOptions {
  /**
   * Also the statements `run` sends inside its transactions (they go through an executor of their
   * own): the spy is then on the executors' shared prototype, so nothing else may query meanwhile.
   */
  inTransactions?: boolean;
  /**
   * Explain with sequential scans priced out (PostgreSQL): it scans a small table whatever its
   * indexes, so only then does a plan name an index exactly when the query lets the planner use it.
   */
  scansPricedOut?: boolean;
}

/**
 * The plan lines of every statement `run` sends on `handle`, each explained with its own parameters
 * (the dialect's EXPLAIN and the column its lines are in come from the capability flags).
 */
export async function plansOf(
  handle: DatabaseHandle,
  run: (db: Db) => Promise<unknown>,
  options: PlanOptions = {},
): Promise<string[]> {
  const { db } = handle;
  let owner: object = db.getExecutor();
  if (options.inTransactions) {
    while (!Object.hasOwn(owner, 'executeQuery')) owner = Object.getPrototypeOf(owner) as object;
  }
  const spy = sinon.spy(owner as { executeQuery: Db['executeQuery'] }, 'executeQuery');
  let sent: CompiledQuery[];
  try {
    await run(db);
    sent = spy.getCalls().map((c) => c.args[0] as CompiledQuery);
  } finally {
    spy.restore();
  }
  const { explainPrefix, planLineColumn, priceOutScansSql } = handle.caps;
  return db.transaction().execute(async (trx) => {
    if (options.scansPricedOut && priceOutScansSql !== null) await sql.raw(priceOutScansSql).execute(trx);
    const plans: string[] = [];
    for (const q of sent) {
      const { rows } = await trx.executeQuery<Record<string, string>>({
        ...q,
        sql: `${explainPrefix} ${q.sql}`,
      });
      plans.push(...rows.map((r) => r[planLineColumn]!));
    }
    return plans;
  });
}
