// The import of a router's local hotspot users into the ticket store, the inventory pages that
// prove it arrived and the count of tickets sold since, on every test database.
import { expect } from 'chai';
import { sql } from 'kysely';
import sinon from 'sinon';
import { SQLITE_CAPABILITIES } from '../../../controller/db/capabilities.js';
import * as m0009 from '../../../controller/db/migrations/0009-ticket-limits.js';
import type { RouterUserImport } from '../../../controller/modules/tickets/router-import.js';
import { ProfilesService } from '../../../controller/modules/tickets/profiles-service.js';
import { RouterImportService } from '../../../controller/modules/tickets/router-import-service.js';
import type { TicketsService } from '../../../controller/modules/tickets/service.js';
import type { Db } from '../../../controller/db/database.js';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { waitFor } from '../../support/wait-for.js';

const MIB = 2 ** 20;
const N = 2000;

/**
 * A realistic router: 2,000 users over three profiles (one the manager already priced, two the
 * store has never seen), some disabled, some used, some used up, some with their own limits,
 * some sold by a reseller, some without password, names in mixed case.
 */
function routerUsers(): RouterUserImport[] {
  return Array.from({ length: N }, (_, i) => {
    const u: RouterUserImport = {
      name: i % 10 === 0 ? `Card${String(i).padStart(4, '0')}` : `card${String(i).padStart(4, '0')}`,
      profile: ['1H', '1 Jour', 'Semaine'][i % 3]!,
      disabled: i % 7 === 0,
    };
    if (i % 13 !== 0) u.password = `pw${i}`;
    if (i % 4 === 0) u.comment = `vendu par Awa | lot ${i}`;
    else if (i % 4 === 1) u.comment = 'mikhmon';
    if (i % 5 === 1) {
      u.uptime_seconds = 120;
      u.bytes_in = 1000;
      u.bytes_out = 500;
    }
    if (i % 11 === 2) {
      u.limit_uptime = 300;
      u.uptime_seconds = 300;
    }
    if (i % 17 === 3) u.limit_bytes_total = 50 * MIB;
    return u;
  });
}

/** What each user must become, spelled out independently of the code under test. */
/** PostgreSQL: the server process of a connection. */
async function backendPid(db: Db): Promise<number> {
  const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
  return rows[0]!.pid;
}

/** PostgreSQL: whether an insert into radius_tickets waits on a lock that `pid` holds. */
async function insertBlockedBy(db: Db, pid: number): Promise<boolean> {
  const { rows } = await sql<{ query: string }>`
    select query from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
  return rows.some((r) => /^insert into "radius_tickets"/i.test(r.query));
}

function expectedStatus(u: RouterUserImport): string {
  if (u.disabled) return 'DISABLED';
  const seconds = u.uptime_seconds ?? 0;
  const bytes = (u.bytes_in ?? 0) + (u.bytes_out ?? 0);
  if (seconds === 0 && bytes === 0) return 'ACTIVE';
  // 1H gives 3600 s; own limit_uptime replaces it.
  const timeLimit = u.limit_uptime ?? (u.profile === '1H' ? 3600 : null);
  return timeLimit !== null && seconds >= timeLimit ? 'EXHAUSTED' : 'USED';
}

forEachDatabase('router user import and inventory', (database) => {
  let t: TestController;
  let clientId: string;
  let tickets: TicketsService;
  let profiles: ProfilesService;
  let imports: RouterImportService;
  beforeEach(async () => {
    t = await startTestController(database);
    clientId = (await t.account('client')).id;
    ({ tickets, profiles, ticketImport: imports } = t.controller.services);
    await profiles.setProfile(clientId, '1H', {
      time_limit_seconds: 3600,
      validity_seconds: 86_400,
      price_xof: 200,
      rate_limit: '1M/1M',
    });
  });
  afterEach(async () => t.close());

  const rows = () =>
    t.db.db
      .selectFrom('radius_tickets')
      .selectAll()
      .where('client_id', '=', clientId)
      .orderBy('code')
      .execute()
      .then((all) =>
        all.map((r) => ({ ...r, bytes_used: Number(r.bytes_used), seconds_used: Number(r.seconds_used) })),
      );

  it('imports 2,000 users with their status, own limits, usage, reseller and password', async () => {
    const users = routerUsers();
    const started = Date.now();
    const result = await imports.importFromRouter(clientId, {
      users: [...users, { name: 'default-trial', profile: 'default', disabled: false }],
    });
    const elapsed = Date.now() - started;
    expect(result).to.deep.equal({ inserted: N, existing: 0, conflicts: [] });
    expect(elapsed, 'fast enough for 15,000 users').to.be.below(15_000);

    const stored = await rows();
    expect(stored).to.have.length(N);
    expect(stored.some((r) => r.code === 'default-trial')).to.equal(false);
    const byCode = new Map(stored.map((r) => [r.code, r]));
    const profileById = new Map((await profiles.listProfiles(clientId)).map((p) => [p.id, p]));
    const now = t.clock.now().toISOString();
    const tally: Record<string, number> = {};
    for (const u of users) {
      const r = byCode.get(u.name)!;
      expect(r, u.name).to.not.equal(undefined);
      const status = expectedStatus(u);
      tally[status] = (tally[status] ?? 0) + 1;
      const consumed = (u.uptime_seconds ?? 0) > 0;
      const profile = profileById.get(r.profile_id)!;
      expect(
        {
          status: r.status,
          password: r.password,
          profile: profile.name,
          comment: r.comment,
          reseller_name: r.reseller_name,
          data_limit_bytes: r.data_limit_bytes === null ? null : Number(r.data_limit_bytes),
          time_limit_seconds: r.time_limit_seconds === null ? null : Number(r.time_limit_seconds),
          bytes_used: r.bytes_used,
          seconds_used: r.seconds_used,
          created_at: r.created_at,
          used_at: r.used_at,
          expires_at: r.expires_at,
          first_nas_id: r.first_nas_id,
        },
        u.name,
      ).to.deep.equal({
        status,
        password: u.password ?? '',
        profile: u.profile,
        comment: u.comment ?? null,
        reseller_name: u.comment?.startsWith('vendu par') ? 'awa' : null,
        data_limit_bytes: u.limit_bytes_total ?? null,
        time_limit_seconds: u.limit_uptime ?? null,
        bytes_used: (u.bytes_in ?? 0) + (u.bytes_out ?? 0),
        seconds_used: u.uptime_seconds ?? 0,
        created_at: now,
        used_at: consumed ? now : null,
        // Only 1H has a validity: counted from the import, as a first authentication would.
        expires_at: consumed && u.profile === '1H' ? '2026-11-22T08:00:00.000Z' : null,
        first_nas_id: null,
      });
    }
    // Every kind of user is represented.
    for (const s of ['ACTIVE', 'USED', 'EXHAUSTED', 'DISABLED']) expect(tally[s], s).to.be.above(10);
    const counts = await tickets.countTickets(clientId);
    expect(counts).to.deep.equal({ DELETED: 0, ...tally });

    // The profiles the store had not seen were created from the router, with nothing set;
    // the manager's profile kept its price, limits and rate.
    const byName = Object.fromEntries((await profiles.listProfiles(clientId)).map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).to.deep.equal(['1 Jour', '1H', 'Semaine']);
    expect(byName['1 Jour']).to.include({
      source: 'ROUTER',
      rate_limit: null,
      price: null,
      data_limit_bytes: null,
      time_limit_seconds: null,
      validity_seconds: null,
    });
    expect(byName['1H']).to.include({
      source: 'MANUAL',
      rate_limit: '1M/1M',
      price: 200,
      time_limit_seconds: 3600,
    });
  });

  it('a replayed import counts every user as existing and changes no row', async () => {
    const users = routerUsers();
    await imports.importFromRouter(clientId, { users });
    const before = await rows();
    const profilesBefore = await profiles.listProfiles(clientId);
    t.clock.advance(3_600_000);
    expect(await imports.importFromRouter(clientId, { users })).to.deep.equal({
      inserted: 0,
      existing: N,
      conflicts: [],
    });
    expect(await rows()).to.deep.equal(before);
    expect(await profiles.listProfiles(clientId)).to.deep.equal(profilesBefore);
  });

  it('reports conflicts (password, profile, deleted) and leaves those tickets untouched', async () => {
    await profiles.setProfile(clientId, '1 Jour', {});
    await imports.importFromRouter(clientId, {
      users: [
        { name: 'pw-differs', password: 'old', profile: '1H', disabled: false },
        { name: 'profile-differs', password: 'x', profile: '1H', disabled: false },
        { name: 'deleted', password: 'x', profile: '1H', disabled: false },
        { name: 'same', password: 'x', profile: '1H', disabled: false },
      ],
    });
    await tickets.setTicketStatus(clientId, 'deleted', 'DELETED');
    const before = await rows();
    const result = await imports.importFromRouter(clientId, {
      users: [
        { name: 'pw-differs', password: 'new', profile: '1H', disabled: false },
        { name: 'profile-differs', password: 'x', profile: '1 Jour', disabled: false },
        { name: 'deleted', password: 'x', profile: '1H', disabled: false },
        { name: 'same', password: 'x', profile: '1H', disabled: true, uptime_seconds: 50 },
        { name: 'new-one', password: 'n', profile: '1H', disabled: false },
        // The same name twice: the later copy is compared with the first.
        { name: 'new-one', password: 'n', profile: '1H', disabled: false },
        { name: 'new-one', password: 'other', profile: '1H', disabled: false },
      ],
    });
    expect(result.inserted).to.equal(1);
    expect(result.existing).to.equal(2);
    expect(result.conflicts).to.have.deep.members([
      { code: 'pw-differs', reason: 'PASSWORD_DIFFERS' },
      { code: 'profile-differs', reason: 'PROFILE_DIFFERS' },
      { code: 'deleted', reason: 'DELETED' },
      { code: 'new-one', reason: 'PASSWORD_DIFFERS' },
    ]);
    const after = await rows();
    expect(after.filter((r) => r.code !== 'new-one')).to.deep.equal(before);
    expect(after.find((r) => r.code === 'new-one')).to.include({ password: 'n', status: 'ACTIVE' });
  });

  it('is scoped to the tenant: another tenant may hold the same codes', async () => {
    const users = routerUsers().slice(0, 50);
    await imports.importFromRouter(clientId, { users });
    const other = (await t.account('client')).id;
    expect(await imports.importFromRouter(other, { users })).to.deep.equal({
      inserted: 50,
      existing: 0,
      conflicts: [],
    });
    // The other tenant got its own profiles, not ours.
    expect((await profiles.getProfile(other, '1H'))!.time_limit_seconds).to.equal(null);
  });

  it('splits the work under a small bind-parameter limit', async () => {
    const caps = { ...SQLITE_CAPABILITIES, maxBindParameters: 100 };
    const small = new RouterImportService(
      t.db.db,
      caps,
      t.clock,
      new ProfilesService(t.db.db, caps, t.clock),
    );
    const users = routerUsers().slice(0, 60);
    expect(await small.importFromRouter(clientId, { users })).to.deep.equal({
      inserted: 60,
      existing: 0,
      conflicts: [],
    });
    expect(await small.importFromRouter(clientId, { users })).to.deep.equal({
      inserted: 0,
      existing: 60,
      conflicts: [],
    });
  });

  it('two concurrent imports of the same users write every code once', async () => {
    const users = routerUsers();
    // PostgreSQL: a second instance with its own pool. SQLite: one process owns the file and its
    // single connection interleaves the two imports' transactions (a second handle in the same
    // process would block the event loop in the busy handler).
    const another = t.db.caps.concurrentTransactions ? await t.db.openAnother() : null;
    try {
      const db = another?.db ?? t.db.db;
      const second = new RouterImportService(
        db,
        t.db.caps,
        t.clock,
        new ProfilesService(db, t.db.caps, t.clock),
      );
      const [a, b] = await Promise.all([
        imports.importFromRouter(clientId, { users }),
        // The other router listed them the other way round: no deadlock (codes written in order).
        second.importFromRouter(clientId, { users: [...users].reverse() }),
      ]);
      expect(a.conflicts).to.deep.equal([]);
      expect(b.conflicts).to.deep.equal([]);
      expect(a.inserted + b.inserted).to.equal(N);
      expect(a.existing + b.existing).to.equal(N);
      expect(a.inserted + a.existing).to.equal(N);
      const stored = await rows();
      expect(stored).to.have.length(N);
      expect(new Set(stored.map((r) => r.code)).size).to.equal(N);
      expect((await profiles.listProfiles(clientId)).map((p) => p.name).sort()).to.deep.equal([
        '1 Jour',
        '1H',
        'Semaine',
      ]);
    } finally {
      await another?.close();
    }
  });

  it('counts a code inserted by a transaction still open during the import as existing', async () => {
    // PostgreSQL: the open transaction is a second instance's, and the import's insert waits on it.
    // SQLite: one connection, which the open transaction holds; the import waits for it whole.
    const concurrent = t.db.caps.concurrentTransactions;
    const another = concurrent ? await t.db.openAnother() : null;
    try {
      const profile = (await profiles.getProfile(clientId, '1H'))!;
      let release!: () => void;
      let inserted!: (backendPid: number | null) => void;
      const held = new Promise<void>((r) => (release = r));
      const ready = new Promise<number | null>((r) => (inserted = r));
      const racer = (another?.db ?? t.db.db).transaction().execute(async (trx) => {
        await trx
          .insertInto('radius_tickets')
          .values({
            id: '0190a000-0000-7000-8000-000000000001',
            client_id: clientId,
            code: 'racing',
            password: 'pw',
            profile_id: profile.id,
            status: 'ACTIVE',
            comment: null,
            reseller_name: null,
            created_at: t.clock.now().toISOString(),
            used_at: null,
            first_nas_id: null,
            bytes_used: 0,
            seconds_used: 0,
            bytes_base: 0,
            seconds_base: 0,
            expires_at: null,
            data_limit_bytes: null,
            time_limit_seconds: null,
          })
          .execute();
        inserted(concurrent ? await backendPid(trx) : null);
        await held;
      });
      const racerPid = await ready;
      const asked = sinon.spy(t.db.db.getExecutor(), 'provideConnection');
      const importing = imports.importFromRouter(clientId, {
        users: [
          { name: 'racing', password: 'pw', profile: '1H', disabled: false },
          { name: 'calm', password: 'pw', profile: '1H', disabled: false },
        ],
      });
      if (racerPid !== null) {
        // The import did not see the row; its insert now waits for the racer, then skips the code.
        await waitFor(() => insertBlockedBy(t.db.db, racerPid), {
          what: 'the import’s insert to wait on the racer',
        });
      } else {
        // The import waits for the connection; once the racer commits it reads the code as stored.
        await waitFor(() => asked.called, { what: 'the import to ask for the connection' });
      }
      asked.restore();
      release();
      await racer;
      expect(await importing).to.deep.equal({ inserted: 1, existing: 1, conflicts: [] });
      expect((await rows()).map((r) => r.code)).to.deep.equal(['calm', 'racing']);
    } finally {
      await another?.close();
    }
  });

  it('walks 2,000 codes in 4 pages of 500, listing what the store lacks', async () => {
    const users = routerUsers();
    await imports.importFromRouter(clientId, { users });
    // One ticket gone from the store, one DELETED (still there), one code never imported.
    await t.db.db
      .deleteFrom('radius_tickets')
      .where('client_id', '=', clientId)
      .where('code', '=', 'card0001')
      .execute();
    await tickets.setTicketStatus(clientId, 'card0002', 'DELETED');
    const expected = [...users.map((u) => u.name).reverse(), 'card0001', 'zz-never'];

    const pages = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<RouterImportService['inventoryPage']>> = await imports.inventoryPage(
        clientId,
        {
          codes: expected,
          cursor,
          limit: 500,
        },
      );
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor !== null);

    expect(pages).to.have.length(5); // 2,001 distinct codes
    expect(pages.map((p) => p.items.length + p.missing_count)).to.deep.equal([500, 500, 500, 500, 1]);
    const seen = pages.flatMap((p) => [...p.items.map((i) => i.code), ...p.missing]);
    const sorted = [...new Set(expected)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(seen.sort((a, b) => sorted.indexOf(a) - sorted.indexOf(b))).to.deep.equal(sorted);
    // Upper-case codes first (JavaScript order), whatever SQL collations would do.
    expect(pages[0]!.items[0]!.code).to.equal('Card0000');
    expect(pages.flatMap((p) => p.missing)).to.deep.equal(['card0001', 'zz-never']);
    expect(pages.reduce((n, p) => n + p.found, 0)).to.equal(1999);
    const deleted = pages.flatMap((p) => p.items).find((i) => i.code === 'card0002');
    expect(deleted).to.deep.equal({ code: 'card0002', status: 'DELETED', profile: 'Semaine' });
    expect(pages[0]!.items.find((i) => i.code === 'card0003')).to.deep.equal({
      code: 'card0003',
      status: 'ACTIVE',
      profile: '1H',
    });
    expect(pages[4]!.next_cursor).to.equal(null);
    expect(pages[0]!.next_cursor).to.equal(pages[0]!.items.at(-1)!.code);

    // Exactly 2,000 expected codes: 4 pages, the last one without a next cursor.
    const exact = users.map((u) => u.name);
    let count = 0;
    cursor = null;
    do {
      const page: Awaited<ReturnType<RouterImportService['inventoryPage']>> = await imports.inventoryPage(
        clientId,
        {
          codes: exact,
          cursor,
        },
      );
      count++;
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(count).to.equal(4);
  });

  it('caps the missing list at 100 but counts them all, and checks the limit', async () => {
    const page = await imports.inventoryPage(clientId, {
      codes: Array.from({ length: 300 }, (_, i) => `x${i}`),
      limit: 1000,
    });
    expect(page).to.include({ found: 0, missing_count: 300, next_cursor: null });
    expect(page.missing).to.have.length(100);
    expect(page.items).to.deep.equal([]);
    for (const limit of [0, 1001, 2.5]) {
      const err = await imports
        .inventoryPage(clientId, { codes: ['a'], limit })
        .catch((e: { code: string }) => e);
      expect((err as { code: string }).code, String(limit)).to.equal('VALIDATION_ERROR');
    }
  });

  it('counts the tickets created since a time, apart from the excluded codes and DELETED ones', async () => {
    const users = routerUsers().slice(0, 100);
    await imports.importFromRouter(clientId, { users });
    const switchedAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    t.clock.advance(60_000);
    const sold = await tickets.createTickets(clientId, { profileId: '1H', quantity: 30 });
    await tickets.setTicketStatus(clientId, sold[0]!.code, 'DELETED');
    t.clock.advance(60_000);
    // A late import at the same time as the sales: excluded by code.
    await imports.importFromRouter(clientId, {
      users: [{ name: 'late-user', password: 'x', profile: '1H', disabled: false }],
    });
    const imported = new Set([...users.map((u) => u.name), 'late-user']);
    expect(await tickets.countCreatedSince(clientId, switchedAt, imported)).to.equal(29);
    expect(await tickets.countCreatedSince(clientId, switchedAt, new Set())).to.equal(30);
    // Second precision and any offset read as the same instant.
    expect(await tickets.countCreatedSince(clientId, '2026-11-21T09:01:00+01:00', imported)).to.equal(29);
    expect(await tickets.countCreatedSince(clientId, '2026-11-21T07:00:00Z', imported)).to.equal(29);
    expect(await tickets.countCreatedSince(clientId, '2026-11-21T07:00:00Z', new Set())).to.equal(130);
    expect(await tickets.countCreatedSince(clientId, '2026-11-22T00:00:00Z', new Set())).to.equal(0);
    const other = (await t.account('client')).id;
    expect(await tickets.countCreatedSince(other, '2026-11-21T07:00:00Z', new Set())).to.equal(0);
    const err = await tickets
      .countCreatedSince(clientId, 'yesterday', new Set())
      .catch((e: { code: string }) => e);
    expect((err as { code: string }).code).to.equal('VALIDATION_ERROR');
  });

  it('migration 0009 goes down and up again', async () => {
    await m0009.down(t.db.db as never);
    const columns = async () =>
      Object.keys((await t.db.db.selectFrom('radius_tickets').selectAll().limit(1).execute())[0] ?? {});
    await profiles.setProfile(clientId, 'P', {});
    await t.db.db
      .insertInto('radius_tickets')
      .values({
        id: '0190a000-0000-7000-8000-000000000002',
        client_id: clientId,
        code: 'old',
        password: 'old',
        profile_id: (await profiles.getProfile(clientId, 'P'))!.id,
        status: 'ACTIVE',
        created_at: t.clock.now().toISOString(),
        bytes_used: 0,
        seconds_used: 0,
      } as never)
      .execute();
    expect(await columns()).to.not.include('data_limit_bytes');
    await m0009.up(t.db.db as never);
    const row = await t.db.db
      .selectFrom('radius_tickets')
      .selectAll()
      .where('code', '=', 'old')
      .executeTakeFirstOrThrow();
    expect(row).to.include({
      data_limit_bytes: null,
      time_limit_seconds: null,
      bytes_base: 0,
      seconds_base: 0,
    });
  });
});
