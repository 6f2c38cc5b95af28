// The ownership check every queued command goes through: the questions of one turn are answered by
// one read, a client never passes for another's owner, and a failed read fails every caller.
import { expect } from 'chai';
import { sql } from 'kysely';
import sinon from 'sinon';
import { AllocationOwners } from '../../../controller/modules/allocations/owners.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import { forEachDatabase, type TestDbHandle } from '../../support/databases.js';

const AT = '2026-11-21T10:00:00.000Z';
const A = '01a1fdce-a0ed-7369-9e0b-00000000000a';
const B = '01a1fdce-a0ed-7369-9e0b-00000000000b';
const alloc = (n: number) => `01a1fdce-a0ed-7369-9e0c-${String(n).padStart(12, '0')}`;

forEachDatabase('allocation owners', (database) => {
  let handle: TestDbHandle;
  before(async () => {
    handle = await database.open();
    await migrateDatabase(handle);
    for (const [id, email] of [
      [A, 'a@example.com'],
      [B, 'b@example.com'],
    ]) {
      await sql`insert into accounts (id, email, password_hash, name, kind, created_at)
        values (${id}, ${email}, 'x', 'n', 'client', ${AT})`.execute(handle.db);
    }
    for (let n = 0; n < 600; n++) {
      await sql`insert into allocations (id, client_id, created_at) values (${alloc(n)}, ${n % 2 ? B : A}, ${AT})`.execute(
        handle.db,
      );
    }
  });
  after(() => handle.close());

  it('answers a burst of questions with one read per 500 ids, each for its own tenant', async () => {
    const owners = new AllocationOwners(handle.db);
    const spy = sinon.spy(handle.db.getExecutor(), 'executeQuery');
    try {
      const asked = Array.from({ length: 600 }, (_, n) => owners.belongsTo(n % 2 ? B : A, alloc(n)));
      const crossed = owners.belongsTo(B, alloc(0));
      const unknown = owners.belongsTo(A, alloc(999));
      expect(await Promise.all(asked)).to.deep.equal(Array(600).fill(true));
      expect(await crossed).to.equal(false);
      expect(await unknown).to.equal(false);
      expect(spy.callCount).to.equal(2);
      // Found owners are kept: asking again reads nothing.
      expect(await owners.belongsTo(A, alloc(2))).to.equal(true);
      expect(await owners.belongsTo(B, alloc(2))).to.equal(false);
      expect(spy.callCount).to.equal(2);
    } finally {
      spy.restore();
    }
  });

  it('answers from an owner remembered from another read (an agent handshake) without reading', async () => {
    const owners = new AllocationOwners(handle.db);
    owners.remember(alloc(3), B);
    const spy = sinon.spy(handle.db.getExecutor(), 'executeQuery');
    try {
      expect(await owners.belongsTo(B, alloc(3))).to.equal(true);
      expect(await owners.belongsTo(A, alloc(3))).to.equal(false);
      expect(spy.callCount).to.equal(0);
    } finally {
      spy.restore();
    }
  });

  it('fails every caller of a turn whose read failed, and answers the next turn afresh', async () => {
    const owners = new AllocationOwners(handle.db);
    const stub = sinon.stub(handle.db.getExecutor(), 'executeQuery').rejects(new Error('database gone'));
    const outcomes = await Promise.allSettled([owners.belongsTo(A, alloc(0)), owners.belongsTo(B, alloc(1))]);
    stub.restore();
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    expect(await owners.belongsTo(A, alloc(0))).to.equal(true);
  });
});
