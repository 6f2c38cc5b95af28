import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type CompiledQuery } from 'kysely';
import type { Database } from '../../../controller/db/schema.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../../controller/db/database.js';
import { migrateToLatest } from '../../../controller/db/migrate.js';
import { assumedIndexStat } from '../../../controller/db/planner-statistics.js';
import { TicketStatements } from '../../../controller/modules/tickets/ticket-statements.js';
import {
  countCreatedSince,
  inventoryRows,
  listTickets,
  ticketsByCodes,
} from '../../../controller/modules/tickets/queries.js';

const CLIENT = '01a1fdce-a0ed-7369-9e0b-346345789991';
// Sixteen: the largest compiled shape of the batched statements, as a busy group commit sends.
const CODES = Array.from({ length: 16 }, (_, i) => `c${String(i * 7 + 1).padStart(7, '0')}`);
const AT = '2026-11-21T10:00:00.000Z';
const TICKETS = 20_000;

describe('SQLite planner statistics', () => {
  describe('assumed index statistics', () => {
    const cases: { columns: string[]; unique: boolean; stat: string }[] = [
      { columns: ['client_id', 'code'], unique: true, stat: '1000000 100000 1' },
      {
        columns: ['client_id', 'created_at', 'code', 'status'],
        unique: false,
        stat: '1000000 100000 1000 10 1',
      },
      { columns: ['id'], unique: true, stat: '1000000 1' },
      { columns: ['client_id'], unique: false, stat: '1000000 100000' },
      // Only a first client_id is the tenant; elsewhere every column narrows alike.
      { columns: ['nas_id', 'client_id'], unique: false, stat: '1000000 10000 100' },
      { columns: ['a', 'b', 'c', 'd', 'e'], unique: false, stat: '1000000 10000 100 1 1 1' },
    ];
    for (const c of cases)
      it(`${c.unique ? 'unique ' : ''}(${c.columns.join(', ')}) → ${c.stat}`, () => {
        expect(assumedIndexStat(c.columns, c.unique)).to.equal(c.stat);
      });
  });

  describe('on a fresh database', () => {
    let dir: string;
    let handle: DatabaseHandle;
    let db: Db;
    // A second connection to the same file that records every statement sent through it.
    let logged: Db;
    const sent: CompiledQuery[] = [];
    let statements: TicketStatements;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tn-planner-'));
      const file = join(dir, 'p.db');
      handle = await openDatabase(`sqlite:${file}`);
      db = handle.db;
      await migrateToLatest(db, handle.caps);
      // The tenant's tickets arrive after the statistics were written (a new install that grows):
      // with a table this size and no statistics, SQLite walks the list index.
      await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
        values (${CLIENT}, 'a@example.com', 'x', 'A', 'client', ${AT})`.execute(db);
      await sql`insert into radius_profiles (id, client_id, name, source, updated_at)
        values ('p1', ${CLIENT}, 'default', 'router', ${AT})`.execute(db);
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${TICKETS})
        insert into radius_tickets (id, client_id, code, password, profile_id, status, created_at)
        select 't' || i, ${CLIENT}, printf('c%07d', i), 'pw', 'p1', 'ACTIVE', ${AT} from n`.execute(db);
      logged = new Kysely<Database>({
        dialect: new SqliteDialect({ database: new BetterSqlite3(file) }),
        log: (event) => void sent.push(event.query),
      });
      statements = new TicketStatements(logged);
    });
    after(async () => {
      await logged.destroy();
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** The query plan lines of every statement `run` sends, each explained with its own parameters. */
    async function plansOf(run: (db: Db) => Promise<unknown>): Promise<string[]> {
      sent.length = 0;
      await run(logged);
      const queries = sent.splice(0);
      const plans: string[] = [];
      for (const q of queries) {
        const { rows } = await logged.executeQuery<{ detail: string }>({
          ...q,
          sql: `explain query plan ${q.sql}`,
        });
        plans.push(...rows.map((r) => r.detail));
      }
      return plans;
    }

    it('gives every index of a tenant table assumed statistics, and no other table any', async () => {
      const { rows } = await sql<{ tbl: string; idx: string; stat: string }>`
        select tbl, idx, stat from sqlite_stat1 where idx is not null`.execute(db);
      const ticketIndexes = rows.filter((r) => r.tbl === 'radius_tickets').map((r) => r.idx);
      const { rows: declared } = await sql<{ name: string }>`
        select name from pragma_index_list('radius_tickets')`.execute(db);
      expect(ticketIndexes).to.have.members(declared.map((d) => d.name));
      const tenantTables = await sql<{ name: string }>`
        select t.name from sqlite_schema t where t.type = 'table'
          and exists (select 1 from pragma_table_info(t.name) c where c.name = 'client_id')`.execute(db);
      expect([...new Set(rows.map((r) => r.tbl))]).to.satisfy((tables: string[]) =>
        tables.every((t) => tenantTables.rows.some((r) => r.name === t)),
      );
    });

    it('leaves statistics alone on the next start (real or assumed, they are kept)', async () => {
      await sql`update sqlite_stat1 set stat = '5 5 1' where idx = 'radius_tickets_list'`.execute(db);
      await migrateToLatest(db, handle.caps);
      const { rows } = await sql<{ stat: string }>`
        select stat from sqlite_stat1 where idx = 'radius_tickets_list'`.execute(db);
      expect(rows.map((r) => r.stat)).to.deep.equal(['5 5 1']);
      await sql`update sqlite_stat1 set stat = ${assumedIndexStat(['client_id', 'created_at', 'code', 'status'], false)}
        where idx = 'radius_tickets_list'`.execute(db);
      await sql`analyze sqlite_schema`.execute(db);
    });

    // Each statement that looks tickets up by code must read them by the (client_id, code) key, not
    // walk the tenant's list index: the planner's default guess made the first-use update do that.
    const byCode: { name: string; run: (db: Db) => Promise<unknown> }[] = [
      { name: 'authentication lookup', run: (d) => statements.findManyForAuth(d, CLIENT, CODES) },
      {
        name: 'first use (ACTIVE → USED)',
        run: (d) =>
          statements.markFirstUse(
            d,
            CLIENT,
            CODES.map((code) => ({ code, at: AT, nasId: 'n', expiresAt: null })),
          ),
      },
      { name: 'exhaustion', run: (d) => statements.markExhausted(d, CLIENT, CODES[0]!) },
      {
        name: 'usage',
        run: (d) =>
          statements.recordUsage(
            d,
            CLIENT,
            'n',
            AT,
            CODES.map((code) => ({ code, bytes: 1, seconds: 1 })),
          ),
      },
      { name: 'import comparison', run: (d) => ticketsByCodes(d, CLIENT, CODES) },
      { name: 'migration inventory', run: (d) => inventoryRows(d, CLIENT, CODES) },
      { name: 'created since, of some codes', run: (d) => countCreatedSince(d, CLIENT, AT, CODES) },
    ];
    for (const s of byCode)
      it(`${s.name}: reads tickets by (client_id, code)`, async () => {
        const plans = await plansOf(s.run);
        const tickets = plans.filter((p) => /\bradius_tickets\b|\bt\b/.test(p) && /SEARCH|SCAN/.test(p));
        expect(tickets, plans.join('\n')).to.not.be.empty;
        for (const p of tickets.filter((d) => !/\bp\b/.test(d)))
          expect(p, plans.join('\n')).to.match(/\(client_id=\? AND code=\?\)/);
      });

    // A list page's codes come from a list index alone (the page, then its rows by code).
    const pages: { name: string; filter: Parameters<typeof listTickets>[2]; index: string }[] = [
      { name: 'first page', filter: { limit: 100, offset: 0 }, index: 'radius_tickets_list' },
      {
        name: 'deep page of a status',
        filter: { limit: 100, offset: 5000, status: 'USED' },
        index: 'radius_tickets_list',
      },
      {
        name: 'deep page of a reseller',
        filter: { limit: 100, offset: 5000, reseller: 'r1' },
        index: 'radius_tickets_list_reseller',
      },
    ];
    for (const page of pages)
      it(`ticket list, ${page.name}: walks ${page.index} alone`, async () => {
        const plans = await plansOf((d) => listTickets(d, CLIENT, page.filter));
        expect(plans, plans.join('\n')).to.include.members([
          `SEARCH k USING COVERING INDEX ${page.index} (client_id=?${page.index.endsWith('reseller') ? ' AND reseller_name=?' : ''})`,
        ]);
      });
  });
});
