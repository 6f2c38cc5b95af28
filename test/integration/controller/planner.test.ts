import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { plansOf as plansOfStatements } from '../../support/query-plans.js';
import { openDatabase, type DatabaseHandle, type Db } from '../../../controller/db/database.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import { assumedIndexStat } from '../../../controller/db/planner-statistics.js';
import { TicketStatements } from '../../../controller/modules/tickets/ticket-statements.js';
import { inventoryRows, listTickets, ticketsByCodes } from '../../../controller/modules/tickets/queries.js';

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
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tn-planner-'));
      handle = await openDatabase(`sqlite:${join(dir, 'p.db')}`);
      db = handle.db;
      await migrateDatabase(handle);
    });
    after(async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    });

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
      await migrateDatabase(handle);
      const { rows } = await sql<{ stat: string }>`
        select stat from sqlite_stat1 where idx = 'radius_tickets_list'`.execute(db);
      expect(rows.map((r) => r.stat)).to.deep.equal(['5 5 1']);
    });
  });
});

// The statements that look tickets up by code must read them by the (client_id, code) key on both
// databases, also before any statistics exist (a new install, a tenant's first big batch or
// import, before autovacuum's first ANALYZE): walking a tenant's list index instead made the
// RADIUS first-use update cost a scan of every ticket of the tenant.
forEachDatabase('ticket statements by code, before any ANALYZE', (database) => {
  let handle: TestDbHandle;
  let db: Db;
  let statements: TicketStatements;
  before(async () => {
    handle = await database.open();
    db = handle.db;
    await migrateDatabase(handle);
    // The tenant's tickets arrive after the migrations (and SQLite's assumed statistics).
    await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
      values (${CLIENT}, 'a@example.com', 'x', 'A', 'client', ${AT})`.execute(db);
    await sql`insert into radius_profiles (id, client_id, name, source, updated_at)
      values ('p1', ${CLIENT}, 'default', 'router', ${AT})`.execute(db);
    const code = sql`substr('0000000' || i, length('0000000' || i) - 6)`;
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${TICKETS})
      insert into radius_tickets (id, client_id, code, password, profile_id, status, created_at)
      select 't' || i, ${CLIENT}, 'c' || ${code}, 'pw', 'p1', 'ACTIVE', ${AT} from n`.execute(db);
    statements = new TicketStatements(db);
  });
  after(() => handle.close());

  const plansOf = (run: (db: Db) => Promise<unknown>) => plansOfStatements(handle, run);

  /** The plan reads radius_tickets through its (client_id, code) key, never through a list index. */
  function expectByCode(plans: string[]): void {
    const text = plans.join('\n');
    if (handle.caps.planShowsSearchKeys) {
      const tickets = plans.filter((p) => /^(SEARCH|SCAN) (radius_tickets|t)\b/.test(p));
      expect(tickets, text).to.not.be.empty;
      for (const p of tickets) expect(p, text).to.match(/\(client_id=\? AND code=\?\)/);
    } else {
      expect(text).to.include('radius_tickets_client_code');
      expect(text).to.not.match(/radius_tickets_list/);
    }
  }

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
      name: 'usage and the status it implies',
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
  ];
  for (const s of byCode)
    it(`${s.name}: reads tickets by (client_id, code)`, async () => expectByCode(await plansOf(s.run)));

  // A list page's codes come from a list index alone (the page, then its rows by code), checked
  // where the plan says whether an index covers the query (SQLite).
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
    it(`ticket list, ${page.name}: walks ${page.index} alone`, async function () {
      if (!handle.caps.planShowsSearchKeys) this.skip();
      const plans = await plansOf((d) => listTickets(d, CLIENT, page.filter));
      const keys = page.index.endsWith('reseller') ? 'client_id=? AND reseller_name=?' : 'client_id=?';
      expect(plans, plans.join('\n')).to.include(`SEARCH k USING COVERING INDEX ${page.index} (${keys})`);
    });
});
