// The command queue's indexes hold open commands only (0075): the reads of open commands (a fresh
// link's resends, the sweep of QUEUED ones, the expiry job) must use them, and the prune job its
// deadline index, on both databases and whatever the table's statistics say; a database that had
// the old indexes keeps every command and finds the same ones afterwards.
import { expect } from 'chai';
import { sql } from 'kysely';
import type { Db } from '../../../controller/db/database.js';
import * as q from '../../../controller/hub/command-queries.js';
import { migrateDatabase, moduleMigrations } from '../../../controller/modules/build-modules.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { openMigratedBefore } from '../../support/migrated-before.js';
import { plansOf } from '../../support/query-plans.js';
import { indexNames } from '../../support/table-indexes.js';

const MIGRATION = '0075-agent-commands-open-indexes';
const CLIENT = '01a1fdce-a0ed-7369-9e0b-346345789991';
const LINKED = '01a1fdce-a0ed-7369-9e0b-000000000001';
const OTHER = '01a1fdce-a0ed-7369-9e0b-000000000002';
const NOW = '2026-11-21T10:00:00.000Z';
const LATER = '2026-11-21T10:05:00.000Z';
const PAST = '2026-11-21T09:59:00.000Z';
const LONG_AGO = '2026-11-01T10:00:00.000Z';

const INDEXES_BEFORE = ['agent_commands_allocation_state', 'agent_commands_state_deadline'];
const INDEXES_AFTER = [
  'agent_commands_deadline',
  'agent_commands_open_allocation',
  'agent_commands_open_state_deadline',
];

const indexesOf = (handle: TestDbHandle) => indexNames(handle, 'agent_commands');

async function seed(db: Db): Promise<void> {
  await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
    values (${CLIENT}, 'a@example.com', 'x', 'A', 'client', ${NOW})`.execute(db);
  for (const id of [LINKED, OTHER])
    await sql`insert into allocations (id, client_id, created_at) values (${id}, ${CLIENT}, ${NOW})`.execute(
      db,
    );
  await sql`insert into agent_links (allocation_id, link_state, link_instance, link_session, last_seen_at)
    values (${LINKED}, 'CONNECTED', 'i1', 's1', ${NOW})`.execute(db);
  const command = (
    id: string,
    allocation: string,
    state: string,
    deadline: string,
    finished: string | null,
  ) =>
    sql`insert into agent_commands (id, allocation_id, client_id, name, params, state, deadline, created_at,
        finished_at)
      values (${id}, ${allocation}, ${CLIENT}, 'router.ping', '{}', ${state}, ${deadline}, ${NOW},
        ${finished})`.execute(db);
  await command('c-queued', LINKED, 'QUEUED', LATER, null);
  await command('c-sent', LINKED, 'SENT', LATER, null);
  await command('c-acked', LINKED, 'ACKED', LATER, null);
  await command('c-overdue', LINKED, 'SENT', PAST, null);
  await command('c-done', LINKED, 'DONE', LATER, NOW);
  await command('c-old', LINKED, 'FAILED', LONG_AGO, LONG_AGO);
  await command('c-other', OTHER, 'QUEUED', LATER, null);
}

forEachDatabase(`migration ${MIGRATION}`, (database) => {
  let handle: TestDbHandle;
  before(async () => {
    handle = await openMigratedBefore(database, MIGRATION);
    expect(await indexesOf(handle)).to.deep.equal(INDEXES_BEFORE);
    await seed(handle.db);
    expect(await migrateDatabase(handle)).to.include(MIGRATION);
  });
  after(() => handle.close());

  it('replaces the indexes over every command by indexes over open commands and the deadline', async () => {
    expect(await indexesOf(handle)).to.deep.equal(INDEXES_AFTER);
    const count = await handle.db
      .selectFrom('agent_commands')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(Number(count!.n)).to.equal(7);
  });

  it('finds the same commands afterwards: resends, the sweep, the expiry, the prune', async () => {
    const db = handle.db;
    const open = await q.openForAllocation(db, LINKED, NOW);
    expect(open.map((r) => r.id).sort()).to.deep.equal(['c-acked', 'c-queued', 'c-sent']);
    const queued = await q.queuedForInstance(db, 'i1', NOW, 100);
    expect(queued.map((r) => r.id)).to.deep.equal(['c-queued']);
    expect(await q.expireOverdue(db, NOW, () => undefined)).to.deep.equal([{ id: 'c-overdue' }]);
    expect(await q.pruneFinished(db, '2026-11-14T10:00:00.000Z', 100)).to.equal(1);
    const left = await db.selectFrom('agent_commands').select(['id', 'state']).orderBy('id').execute();
    expect(left).to.deep.equal([
      { id: 'c-acked', state: 'ACKED' },
      { id: 'c-done', state: 'DONE' },
      { id: 'c-other', state: 'QUEUED' },
      { id: 'c-overdue', state: 'EXPIRED' },
      { id: 'c-queued', state: 'QUEUED' },
      { id: 'c-sent', state: 'SENT' },
    ]);
  });

  it('comes back down to the old indexes', async () => {
    const m = moduleMigrations()[MIGRATION]!;
    await m.down!(handle.db as never);
    expect(await indexesOf(handle)).to.deep.equal(INDEXES_BEFORE);
    await m.up(handle.db as never);
    expect(await indexesOf(handle)).to.deep.equal(INDEXES_AFTER);
  });
});

// Either index over open commands serves the reads across allocations: both hold open commands only.
const ANY_OPEN = /agent_commands_open_(allocation|state_deadline)/;

/** Each read of the queue and the index its plan must name. */
const READS: { name: string; index: RegExp; run: (db: Db) => Promise<unknown> }[] = [
  {
    name: "a fresh link's open commands",
    index: /agent_commands_open_allocation/,
    run: (db) => q.openForAllocation(db, LINKED, NOW),
  },
  {
    name: 'the sweep of QUEUED commands',
    index: ANY_OPEN,
    run: (db) => q.queuedForInstance(db, 'i1', NOW, 1000),
  },
  {
    name: 'the expiry of overdue commands',
    index: ANY_OPEN,
    run: (db) => q.expireOverdue(db, NOW, () => undefined),
  },
  {
    name: 'the prune of old final commands',
    index: /agent_commands_deadline/,
    run: (db) => q.pruneFinished(db, PAST, 1000),
  },
];

/** The plan of every statement a read sends, transactions included, with scans priced out. */
const planOf = async (handle: TestDbHandle, run: (db: Db) => Promise<unknown>): Promise<string> =>
  (await plansOf(handle, run, { inTransactions: true, scansPricedOut: true })).join('\n');

forEachDatabase('command queue reads and their indexes', (database) => {
  let handle: TestDbHandle;
  before(async () => {
    handle = await database.open();
    await migrateDatabase(handle);
    await seed(handle.db);
  });
  after(() => handle.close());

  for (const read of READS)
    it(`${read.name} uses ${read.index.source}, before any statistics`, async () => {
      const plan = await planOf(handle, read.run);
      expect(plan, plan).to.match(read.index);
    });

  // Final commands of the last weeks, half of them ended before their deadline passed (as a command
  // that answers at once does), so a deadline still ahead does not single out open commands.
  it('and with statistics of a table of 20,000 final commands and a few open ones', async () => {
    const db = handle.db;
    const rows = Array.from({ length: 20_000 }, (_, i) => ({
      id: `f-${String(i).padStart(6, '0')}`,
      allocation_id: i % 2 ? LINKED : OTHER,
      client_id: CLIENT,
      name: 'router.ping',
      params: '{}',
      state: 'DONE' as const,
      deadline: i % 2 ? LATER : LONG_AGO,
      created_at: LONG_AGO,
      sent_at: LONG_AGO,
      acked_at: LONG_AGO,
      finished_at: LONG_AGO,
      attempts: 1,
      output: '{}',
      fault_code: null,
      fault_message: null,
      fault_retryable: null,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('agent_commands')
        .values(rows.slice(i, i + 1000))
        .execute();
    await sql`analyze`.execute(db);
    for (const read of READS) {
      const plan = await planOf(handle, read.run);
      expect(plan, `${read.name}\n${plan}`).to.match(read.index);
    }
  });
});
