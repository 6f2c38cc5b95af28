import type { CompiledQuery } from 'kysely';
import sinon from 'sinon';
import type { DatabaseHandle, Db } from '../../controller/db/database.js';

/**
 * The plan lines of every statement `run` sends on `handle`, each explained with its own parameters
 * (the dialect's EXPLAIN and the column its lines are in come from the capability flags).
 */
export async function plansOf(handle: DatabaseHandle, run: (db: Db) => Promise<unknown>): Promise<string[]> {
  const { db } = handle;
  const spy = sinon.spy(db.getExecutor(), 'executeQuery');
  let sent: CompiledQuery[];
  try {
    await run(db);
    sent = spy.getCalls().map((c) => c.args[0] as CompiledQuery);
  } finally {
    spy.restore();
  }
  const { explainPrefix, planLineColumn } = handle.caps;
  const plans: string[] = [];
  for (const q of sent) {
    const { rows } = await db.executeQuery<Record<string, string>>({
      ...q,
      sql: `${explainPrefix} ${q.sql}`,
    });
    plans.push(...rows.map((r) => r[planLineColumn]!));
  }
  return plans;
}
