// A send recorded on a connection and a newer connection taking the link over never miss each other:
// either the send commits before the takeover, and the new connection's first read of open
// commands finds it (SENT, to resend), or the takeover commits first and the send is not recorded
// (the command stays QUEUED for the new holder). On PostgreSQL the two run on different
// connections and meet on the link row's lock; on SQLite one writer at a time gives the same.
import { expect } from 'chai';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../controller/db/database.js';
import { linkOfCommandHeldBy, markConnected } from '../../../controller/hub/link-queries.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import { forEachDatabase } from '../../support/databases.js';

const AT = '2026-11-27T10:00:00.000Z';
const CLIENT = 'client-1';
const ALLOCATION = 'allocation-1';
const COMMAND = 'command-1';
// Long enough for a statement that does not wait to have finished; nothing here waits for it to pass.
const PAUSE_MS = 300;

forEachDatabase('a send recorded while the link is taken over', (database) => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await database.open();
    await migrateDatabase(handle);
    const { db } = handle;
    await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
      values (${CLIENT}, 'a@example.com', 'x', 'A', 'client', ${AT})`.execute(db);
    await sql`insert into allocations (id, client_id, created_at) values (${ALLOCATION}, ${CLIENT}, ${AT})`.execute(
      db,
    );
    await markConnected(
      db,
      ALLOCATION,
      { instance: 'i1', session: 'old', now: AT, agentVersion: '0.1.0' },
      handle.caps.rowLocks,
    );
    await sql`insert into agent_commands (id, allocation_id, client_id, name, params, state, deadline, created_at)
      values (${COMMAND}, ${ALLOCATION}, ${CLIENT}, 'router.ping', '{}', 'QUEUED', '2099-01-01T00:00:00.000Z', ${AT})`.execute(
      db,
    );
  });

  /** A transaction whose first step runs now and which commits when `commit` is called. */
  // Every transaction opened here commits by the end of the test, whatever failed (else the
  // database could not close).
  const open: (() => void)[] = [];
  afterEach(async () => {
    open.splice(0).forEach((commit) => commit());
    await handle.close();
  });
  function openTransaction(step: (trx: DatabaseHandle['db']) => Promise<unknown>) {
    let commit!: () => void;
    const gate = new Promise<void>((resolve) => (commit = resolve));
    open.push(commit);
    let stepDone!: (value: unknown) => void;
    const stepped = new Promise((resolve) => (stepDone = resolve));
    const done = handle.db.transaction().execute(async (trx) => {
      stepDone(await step(trx));
      await gate;
    });
    return { stepped, commit, done };
  }

  const recordSend = (db: DatabaseHandle['db'], session: string) =>
    db
      .updateTable('agent_commands')
      .set({ state: 'SENT', sent_at: AT })
      .where('id', '=', COMMAND)
      .where('state', '=', 'QUEUED')
      .where(linkOfCommandHeldBy(session, handle.caps.rowLocks))
      .executeTakeFirst();
  const takeOver = () =>
    markConnected(
      handle.db,
      ALLOCATION,
      { instance: 'i2', session: 'new', now: AT, agentVersion: '0.1.0' },
      handle.caps.rowLocks,
    );
  const stateOfCommand = async () =>
    (
      await handle.db
        .selectFrom('agent_commands')
        .select('state')
        .where('id', '=', COMMAND)
        .executeTakeFirst()
    )?.state;
  const settledWithin = (p: Promise<unknown>, ms: number) =>
    Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

  it('a takeover waits for a send being recorded on the old connection, then finds it SENT', async () => {
    const send = openTransaction((trx) => recordSend(trx, 'old'));
    expect(Number(((await send.stepped) as { numUpdatedRows: bigint }).numUpdatedRows)).to.equal(1);
    const takeover = takeOver();
    expect(await settledWithin(takeover, PAUSE_MS), 'takeover committed before the send').to.equal(false);
    send.commit();
    await send.done;
    await takeover;
    // What the new connection's first read of open commands sees: the command, to resend.
    expect(await stateOfCommand()).to.equal('SENT');
  });

  it('a send on the old connection waits for a takeover under way, then is not recorded', async () => {
    // The takeover's own steps (markConnected), its commit held back.
    const takeover = openTransaction(async (trx) => {
      if (handle.caps.rowLocks)
        await trx
          .selectFrom('agent_links')
          .select('allocation_id')
          .where('allocation_id', '=', ALLOCATION)
          .forUpdate()
          .execute();
      return trx
        .updateTable('agent_links')
        .set({ link_session: 'new', link_instance: 'i2' })
        .where('allocation_id', '=', ALLOCATION)
        .execute();
    });
    await takeover.stepped;
    const send = recordSend(handle.db, 'old');
    expect(await settledWithin(send, PAUSE_MS), 'send recorded during the takeover').to.equal(false);
    takeover.commit();
    await takeover.done;
    expect(Number((await send).numUpdatedRows)).to.equal(0);
    expect(await stateOfCommand()).to.equal('QUEUED');
  });
});
