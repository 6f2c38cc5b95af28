// 0012 moves the link columns of `allocations` into the hub's `agent_links`: a database that has
// links before it keeps every one of them, and `allocations` loses the columns and their index.
import { expect } from 'chai';
import { sql } from 'kysely';
import { pino } from 'pino';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';
import { openMigratedBefore } from '../../support/migrated-before.js';
import { indexNames } from '../../support/table-indexes.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { AgentLinks } from '../../../controller/hub/index.js';
import { AllocationsService } from '../../../controller/modules/allocations/index.js';

const CLIENT = '01a1fdce-a0ed-7369-9e0b-346345789991';
const LINKED = '01a1fdce-a0ed-7369-9e0b-000000000001';
const LEFT = '01a1fdce-a0ed-7369-9e0b-000000000002';
const NEVER = '01a1fdce-a0ed-7369-9e0b-000000000003';
const AT = '2026-11-21T10:00:00.000Z';
const SEEN = '2026-11-21T09:59:50.000Z';
const LEFT_AT = '2026-11-21T08:00:00.000Z';

forEachDatabase('migration 0012-agent-links', (database) => {
  let handle: TestDbHandle;
  before(async () => {
    handle = await openMigratedBefore(database, '0012-agent-links');
    const db = handle.db;
    await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
      values (${CLIENT}, 'a@example.com', 'x', 'A', 'client', ${AT})`.execute(db);
    const allocation = (id: string, link: string) => sql`
      insert into allocations (id, client_id, created_at, agent_id, agent_public_key, agent_version,
        enrolled_at, link_state, link_instance, link_session, last_seen_at)
      values (${id}, ${CLIENT}, ${AT}, ${sql.raw(link)})`;
    await allocation(LINKED, `'agent-1', 'k1', '0.2.0', '${AT}', 'CONNECTED', 'i1', 's1', '${SEEN}'`).execute(
      db,
    );
    await allocation(
      LEFT,
      `'agent-2', 'k2', '0.1.0', '${AT}', 'DISCONNECTED', null, null, '${LEFT_AT}'`,
    ).execute(db);
    await allocation(NEVER, `null, null, null, null, 'DISCONNECTED', null, null, null`).execute(db);
    await sql`insert into agent_commands (id, allocation_id, client_id, name, params, state, deadline, created_at)
      values ('c1', ${LINKED}, ${CLIENT}, 'router.facts', '{}', 'QUEUED', '2099-01-01T00:00:00.000Z', ${AT})`.execute(
      db,
    );
    expect(await migrateDatabase(handle)).to.include('0012-agent-links');
  });
  after(() => handle.close());

  it('moves every link over as it was', async () => {
    const links = await handle.db.selectFrom('agent_links').selectAll().orderBy('allocation_id').execute();
    expect(links).to.deep.equal([
      {
        allocation_id: LINKED,
        link_state: 'CONNECTED',
        link_instance: 'i1',
        link_session: 's1',
        last_seen_at: SEEN,
        agent_version: '0.2.0',
      },
      {
        allocation_id: LEFT,
        link_state: 'DISCONNECTED',
        link_instance: null,
        link_session: null,
        last_seen_at: LEFT_AT,
        agent_version: '0.1.0',
      },
      {
        allocation_id: NEVER,
        link_state: 'DISCONNECTED',
        link_instance: null,
        link_session: null,
        last_seen_at: null,
        agent_version: null,
      },
    ]);
  });

  it('drops the link columns and their index from allocations', async () => {
    const tables = await handle.db.introspection.getTables();
    const columns = tables.find((t) => t.name === 'allocations')!.columns.map((c) => c.name);
    for (const gone of ['link_state', 'link_instance', 'link_session', 'last_seen_at', 'agent_version']) {
      expect(columns).to.not.include(gone);
    }
    expect(columns).to.include.members(['id', 'client_id', 'agent_id', 'agent_public_key', 'enrolled_at']);
    expect(await indexNames(handle, 'allocations')).to.not.include('allocations_link_instance');
  });

  it('shows the allocations as before, their commands untouched', async () => {
    const clock = new ManualClock(new Date(AT));
    const allocations = new AllocationsService(
      handle.db,
      clock,
      pino({ level: 'silent' }),
      new AgentLinks(handle.db, handle.caps.rowLocks),
      { publicUrl: () => 'http://127.0.0.1/', linkStaleMs: 90_000 },
    );
    const listed = await allocations.list(CLIENT);
    expect(listed.map((a) => [a.id, a.link_state, a.last_seen_at, a.agent_version])).to.deep.equal([
      [LINKED, 'CONNECTED', SEEN, '0.2.0'],
      [LEFT, 'DISCONNECTED', LEFT_AT, '0.1.0'],
      [NEVER, 'DISCONNECTED', null, null],
    ]);
    const command = await handle.db.selectFrom('agent_commands').select(['id', 'state']).executeTakeFirst();
    expect(command).to.deep.equal({ id: 'c1', state: 'QUEUED' });
  });
});
