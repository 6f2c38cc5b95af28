// The migration's safety rule: local accounts leave the router only when RADIUS provably holds
// every one of them as it is on the router. An import that meets a conflict (a ticket already
// stored under a router user's code with another password) withholds that proof, so the removal
// step refuses and the router keeps every local account.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { MigrationFixture, routerUsers } from './migration-fixture.js';

forEachDatabase('Migration to RADIUS: an import conflict blocks the removal', (database) => {
  let f: MigrationFixture;

  beforeEach(async () => {
    f = new MigrationFixture(database);
    await f.start();
  });
  afterEach(() => f.stop());

  it('refuses RETRAIT_LOCAL for want of the import proof and removes nothing from the router', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 40 });
    const before = routerUsers(sim);
    const [code, local] = [...before].find(([name]) => name !== 'default-trial')!;
    expect(local.password).to.be.a('string');
    expect(local.profile).to.be.a('string');

    // The same code is already a ticket in RADIUS, with another password.
    const imports = f.t.controller.services.ticketImport;
    const seeded = await imports.importFromRouter(f.client.id, {
      users: [{ name: code, password: `${local.password}-other`, profile: local.profile!, disabled: false }],
    });
    expect(seeded).to.include({ inserted: 1 });

    const res = await f.migrate(allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ retires: 0 });
    const step = (name: string) => res.body.etapes.find((e: { etape: string }) => e.etape === name);
    expect(step('IMPORT')).to.include({ etat: 'OK', complet: false, conflits: 1, importes: before.size - 2 });
    expect(step('RETRAIT_LOCAL')).to.include({
      etat: 'REFUSE',
      raison: 'PREUVE_MANQUANTE_IMPORT_RADIUS_CONFIRME',
      retires: 0,
    });

    // The router still has every local account, exactly as before.
    expect(routerUsers(sim)).to.deep.equal(before);
    // The ticket that was there keeps its own password: the import overwrote nothing.
    const tickets = f.t.controller.services.tickets;
    expect((await tickets.getTicket(f.client.id, code))!.password).to.equal(`${local.password}-other`);
  });
});
