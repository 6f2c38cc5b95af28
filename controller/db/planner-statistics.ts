// SQLite plans a table that has no statistics as if an equality on an index's first column
// selected about ten rows. Our tenant tables are indexed by client_id first, and one tenant holds
// most rows: without statistics, `client_id = ? AND code IN (…) AND status = …` walked a whole
// tenant's list index instead of reading a few tickets by code (RADIUS authentication fell from
// about 19,000 to 1,400 a second on 100,000 tickets). Until real statistics exist (ANALYZE
// through `PRAGMA optimize`, at open and every hour), tenant tables get assumed ones that say what
// is true of them: client_id is not selective, and a unique index's full key selects one row.
import { sql } from 'kysely';
import type { Db } from './database.js';

const ASSUMED_ROWS = 1_000_000;
const ASSUMED_ROWS_PER_TENANT = 100_000;
// Each further column of an index narrows the rows it selects by this much.
const NARROWING = 100;
const TENANT_COLUMN = 'client_id';

/** The sqlite_stat1 `stat` value assumed for an index: rows, then rows per key prefix. */
export function assumedIndexStat(columns: readonly string[], unique: boolean): string {
  const stat = [ASSUMED_ROWS];
  let rows = ASSUMED_ROWS;
  columns.forEach((column, i) => {
    if (unique && i === columns.length - 1) rows = 1;
    else if (i === 0 && column === TENANT_COLUMN) rows = ASSUMED_ROWS_PER_TENANT;
    else rows = Math.max(1, Math.floor(rows / NARROWING));
    stat.push(rows);
  });
  return stat.join(' ');
}

/**
 * Writes assumed statistics for every tenant table (one with a client_id column) that has none,
 * and loads them. SQLite only; run after the migrations. Returns the tables it wrote for.
 */
export async function seedPlannerStatistics(db: Db): Promise<string[]> {
  // Creates sqlite_stat1 when it does not exist yet (analysing the schema table itself is instant).
  await sql`analyze sqlite_schema`.execute(db);
  const { rows: tables } = await sql<{ name: string }>`
    select t.name from sqlite_schema t
    where t.type = 'table' and t.name not like 'sqlite_%'
      and exists (select 1 from pragma_table_info(t.name) c where c.name = ${TENANT_COLUMN})
      and not exists (select 1 from sqlite_stat1 s where s.tbl = t.name)`.execute(db);
  if (tables.length === 0) return [];
  await db.transaction().execute(async (trx) => {
    for (const { name: table } of tables) {
      const { rows: indexes } = await sql<{ name: string; unique: number }>`
        select name, "unique" from pragma_index_list(${table})`.execute(trx);
      for (const index of indexes) {
        const { rows: columns } = await sql<{ name: string }>`
          select name from pragma_index_info(${index.name}) order by seqno`.execute(trx);
        const stat = assumedIndexStat(
          columns.map((c) => c.name),
          index.unique === 1,
        );
        await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${table}, ${index.name}, ${stat})`.execute(
          trx,
        );
      }
    }
  });
  // Loads the statistics just written into the planner.
  await sql`analyze sqlite_schema`.execute(db);
  return tables.map((t) => t.name);
}
