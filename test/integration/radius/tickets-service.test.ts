import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SQLITE_CAPABILITIES } from '../../../controller/db/capabilities.js';
import type { ProfilesService } from '../../../controller/modules/tickets/profiles-service.js';
import { TicketsService } from '../../../controller/modules/tickets/service.js';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';

forEachDatabase('ticket store (service)', (database) => {
  let t: TestController;
  let clientId: string;
  let tickets: TicketsService;
  let profiles: ProfilesService;
  beforeEach(async () => {
    t = await startTestController(database);
    clientId = (await t.account('client')).id;
    ({ tickets, profiles } = t.controller.services);
    await profiles.setProfile(clientId, '1H', { time_limit_seconds: 3600, price_xof: 200 });
  });
  afterEach(async () => t.close());

  it('creates tickets inside a caller transaction, and none when it rolls back', async () => {
    const failed = await t.db.db
      .transaction()
      .execute(async (trx) => {
        const made = await tickets.createTickets(
          clientId,
          { profileId: '1H', quantity: 5, resellerName: 'awa' },
          trx,
        );
        expect(made).to.have.length(5);
        throw new Error('ledger debit refused');
      })
      .catch((e: Error) => e.message);
    expect(failed).to.equal('ledger debit refused');
    expect(await tickets.listTickets(clientId, { limit: 100, offset: 0 })).to.deep.equal([]);

    await t.db.db
      .transaction()
      .execute((trx) =>
        tickets.createTickets(clientId, { profileId: '1H', quantity: 3, resellerName: 'awa' }, trx),
      );
    const listed = await tickets.listTickets(clientId, { reseller: 'awa', limit: 100, offset: 0 });
    expect(listed.map((x) => x.reseller_name)).to.deep.equal(['awa', 'awa', 'awa']);
    expect(await tickets.listTickets(clientId, { reseller: 'moussa', limit: 100, offset: 0 })).to.deep.equal(
      [],
    );
  });

  it('splits large batches under the bind-parameter limit', async () => {
    const small = new TicketsService(t.db.db, { ...SQLITE_CAPABILITIES, maxBindParameters: 100 }, t.clock);
    const made = await small.createTickets(clientId, { profileId: '1H', quantity: 50 });
    expect(new Set(made.map((m) => m.code)).size).to.equal(50);
    expect((await tickets.countTickets(clientId)).ACTIVE).to.equal(50);
  });

  it('draws again when a code is already taken in the tenant', async () => {
    const zeros = new TicketsService(t.db.db, SQLITE_CAPABILITIES, t.clock, (n) => Buffer.alloc(n));
    const [first] = await zeros.createTickets(clientId, { profileId: '1H', quantity: 1 });
    expect(first!.code).to.equal('aaaaaaaa');
    let calls = 0;
    const collideOnce = new TicketsService(t.db.db, SQLITE_CAPABILITIES, t.clock, (n) =>
      calls++ < 2 ? Buffer.alloc(n) : randomBytes(n),
    );
    const [second] = await collideOnce.createTickets(clientId, { profileId: '1H', quantity: 1 });
    expect(second!.code).to.not.equal('aaaaaaaa');
    expect((await tickets.countTickets(clientId)).ACTIVE).to.equal(2);
    // Another tenant may hold the same code.
    const other = (await t.account('client')).id;
    await profiles.setProfile(other, '1H', {});
    expect((await zeros.createTickets(other, { profileId: '1H', quantity: 1 }))[0]!.code).to.equal(
      'aaaaaaaa',
    );
  });

  it("takes profiles from a router without touching the manager's price and limits", async () => {
    const first = await profiles.upsertProfilesFromRouter(clientId, [
      { name: '1H', rate_limit: '1M/1M' },
      { name: '1 Jour', rate_limit: '2M/4M' },
    ]);
    expect(first).to.deep.equal({ inserted: 1, updated: 1 });
    const byName = Object.fromEntries((await profiles.listProfiles(clientId)).map((p) => [p.name, p]));
    expect(byName['1H']).to.include({
      rate_limit: '1M/1M',
      price: 200,
      time_limit_seconds: 3600,
      source: 'MANUAL',
    });
    expect(byName['1 Jour']).to.include({ rate_limit: '2M/4M', price: null, source: 'ROUTER' });
    expect(await profiles.upsertProfilesFromRouter(clientId, [])).to.deep.equal({ inserted: 0, updated: 0 });
  });

  it('counts USED and EXHAUSTED apart', async () => {
    const made = await tickets.createTickets(clientId, { profileId: '1H', quantity: 4 });
    await t.db.db
      .updateTable('radius_tickets')
      .set({ status: 'USED' })
      .where('code', '=', made[0]!.code)
      .execute();
    await t.db.db
      .updateTable('radius_tickets')
      .set({ status: 'EXHAUSTED' })
      .where('code', 'in', [made[1]!.code, made[2]!.code])
      .execute();
    expect(await tickets.countTickets(clientId)).to.deep.equal({
      ACTIVE: 1,
      USED: 1,
      EXHAUSTED: 2,
      DISABLED: 0,
      DELETED: 0,
    });
  });
});
