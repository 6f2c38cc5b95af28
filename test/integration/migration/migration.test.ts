// Migration of a router to RADIUS with the real pieces over real sockets (controller, agent
// runtime, RouterOS 7.19 simulator), on both databases. What stays on the router is read from the
// simulator's own tables after every run.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { waitFor } from '../../support/wait-for.js';
import {
  hotspotUsesRadius,
  MIGRATION_BASE,
  MigrationFixture,
  routerUsers,
  voucherNames,
} from './migration-fixture.js';

const STEPS_OK = ['SAUVEGARDE', 'IMPORT', 'CONFIG', 'RETRAIT_LOCAL', 'ARMEMENT'];

forEachDatabase('Migration to RADIUS (controller, agent runtime, RouterOS simulator)', (database) => {
  let f: MigrationFixture;

  beforeEach(async () => {
    f = new MigrationFixture(database);
    await f.start();
  });
  afterEach(() => f.stop());

  const ticketCount = async () =>
    (await f.t.controller.services.tickets.countTickets(f.client.id)) as Record<string, number>;

  it('migrates: backup, import, configuration, removal verified by count, armed; default-trial spared', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 300 });
    const before = voucherNames(sim);
    expect(before).to.have.length(300);

    const res = await f.migrate(allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ success: true, allocation_id: allocationId, statut: 'ARMEMENT' });
    expect(res.body.nas_id).to.be.a('string');
    expect(res.body.importes).to.equal(300);
    expect(res.body.retires).to.equal(300);
    expect(res.body.etapes.map((e: { etape: string }) => e.etape)).to.deep.equal(STEPS_OK);
    for (const e of res.body.etapes) expect(e.etat, e.etape).to.equal('OK');
    expect(res.body.etapes[0]).to.include({ comptes: 300 });
    expect(res.body.etapes[0].octets).to.be.above(0);
    expect(res.body.etapes[1]).to.include({ importes: 300, comptes: 300, complet: true, conflits: 0 });

    // On the router: only default-trial left, the hotspot asks RADIUS, the backup file is there.
    expect([...routerUsers(sim).keys()]).to.deep.equal(['default-trial']);
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
    expect(sim.state.table('/radius').list()).to.have.length(1);

    // In the store: every local account is a ticket with its password and profile.
    const tickets = f.t.controller.services.tickets;
    for (const name of before.slice(0, 20)) {
      const local = await tickets.getTicket(f.client.id, name);
      expect(local, name).to.not.equal(null);
    }
    const counts = await ticketCount();
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).to.equal(300);

    // One notification per step, in order, with the counts.
    const notices = await f.notices();
    expect(notices.map((n) => n.etape)).to.deep.equal(['SAUVEGARDE', 'IMPORT', 'RETRAIT_LOCAL', 'ARMEMENT']);
    expect(notices[0]!.body).to.include('300 comptes sauvegardés');
    expect(notices[1]!.body).to.include('300 comptes sur 300');
    expect(notices[2]!.body).to.include('300 comptes locaux retirés');

    // The migration state reads back.
    const state = await f.t.request('GET', `/api/v1/radius/admin/migration/${allocationId}`, {
      token: f.admin.token,
    });
    expect(state.status).to.equal(200);
    expect(state.body.migration).to.include({
      statut: 'ARMEMENT',
      importes: 300,
      retires: 300,
      en_cours: false,
    });
  });

  it('retirer_local false does everything except removal: REFUSE, router dual', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 50 });
    const res = await f.migrate(allocationId, { retirer_local: false });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ statut: 'ARMEMENT', importes: 50, retires: 0 });
    const retrait = res.body.etapes.find((e: { etape: string }) => e.etape === 'RETRAIT_LOCAL');
    expect(retrait).to.include({ etat: 'REFUSE', raison: 'RETRAIT_NON_DEMANDE' });
    expect(voucherNames(sim)).to.have.length(50);
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
  });

  it('replays steps 1 to 4 without damage, then removes on the replay', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 80 });
    const first = await f.migrate(allocationId, { retirer_local: false });
    expect(first.status).to.equal(200);
    const second = await f.migrate(allocationId, { retirer_local: false });
    expect(second.status, JSON.stringify(second.body)).to.equal(200);
    expect(second.body.importes).to.equal(80);
    expect(Object.values(await ticketCount()).reduce((a, b) => a + b, 0)).to.equal(80);
    expect(sim.state.table('/radius').list()).to.have.length(1);
    const third = await f.migrate(allocationId, { retirer_local: true });
    expect(third.status, JSON.stringify(third.body)).to.equal(200);
    expect(third.body.retires).to.equal(80);
    expect(voucherNames(sim)).to.deep.equal([]);
  });

  it('an account created on the router after the backup is not removed', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 30 });
    // Created between the import and the removal: the removal step lists the router again.
    let added = false;
    const imports = f.t.controller.services.ticketImport;
    const original = imports.importFromRouter.bind(imports);
    imports.importFromRouter = async (...args) => {
      const out = await original(...args);
      if (!added) {
        added = true;
        sim.state.table('/ip/hotspot/user').insert({ name: 'late-sale', password: 'x', profile: 'default' });
      }
      return out;
    };
    const res = await f.migrate(allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.retires).to.equal(30);
    const retrait = res.body.etapes.find((e: { etape: string }) => e.etape === 'RETRAIT_LOCAL');
    expect(retrait).to.include({ etat: 'OK', restes: 1 });
    expect(voucherNames(sim)).to.deep.equal(['late-sale']);
  });

  describe('stops before removal: nothing removed, ECHEC notified', () => {
    const cases = [
      {
        name: 'backup lost',
        faults: { loseBackup: true },
        code: 'MIGRATION_BACKUP_FAILED',
        etape: 'SAUVEGARDE',
      },
      {
        name: 'empty backup',
        faults: { emptyBackup: true },
        code: 'MIGRATION_BACKUP_EMPTY',
        etape: 'SAUVEGARDE',
      },
      {
        name: 'configuration refused',
        faults: { failCommand: { path: '/radius/add', message: 'failure: not enough permissions' } },
        code: 'MIGRATION_DEPLOY_FAILED',
        etape: 'CONFIG',
      },
    ];
    for (const c of cases) {
      it(`${c.name} → ${c.code}`, async function () {
        this.timeout(60_000);
        const { sim, allocationId } = await f.site({ users: 40 });
        sim.faults.set(c.faults);
        const res = await f.migrate(allocationId, { retirer_local: true });
        expect(res.status, JSON.stringify(res.body)).to.equal(502);
        expect(res.body).to.include({ success: false, code: c.code, statut: 'ECHEC', retires: 0 });
        expect(res.body.error.code).to.equal(c.code);
        const last = res.body.etapes.at(-1);
        expect(last).to.include({ etape: c.etape, etat: 'REFUSE', code: c.code });
        expect(voucherNames(sim)).to.have.length(40);
        const notices = await f.notices();
        expect(notices.at(-1)!.etape).to.equal('ECHEC');
        expect(notices.at(-1)!.body).to.include("Aucun compte n'a été retiré");
        if (c.code !== 'MIGRATION_DEPLOY_FAILED') {
          expect(hotspotUsesRadius(sim).some(Boolean)).to.equal(false);
        }
      });
    }
  });

  describe('stops during removal: accounts left in place, router armed and dual', () => {
    it('count impossible → MIGRATION_COUNT_FAILED, nothing removed', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 40 });
      sim.faults.set({ countImpossible: true });
      const res = await f.migrate(allocationId, { retirer_local: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(502);
      expect(res.body).to.include({
        code: 'MIGRATION_COUNT_FAILED',
        statut: 'ARMEMENT',
        retires: 0,
        importes: 40,
      });
      expect(voucherNames(sim)).to.have.length(40);
      expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
    });

    it('removal stalls → MIGRATION_REMOVE_STALLED with the removed count verified', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 60 });
      sim.faults.set({ stallRemovalsAfter: 25 });
      const res = await f.migrate(allocationId, { retirer_local: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(502);
      expect(res.body).to.include({ code: 'MIGRATION_REMOVE_STALLED', statut: 'ARMEMENT', retires: 25 });
      expect(voucherNames(sim)).to.have.length(35);
      expect(routerUsers(sim).has('default-trial')).to.equal(true);
      // Every account left on the router is in RADIUS: the site works either way.
      const tickets = f.t.controller.services.tickets;
      for (const name of voucherNames(sim))
        expect(await tickets.getTicket(f.client.id, name), name).to.not.equal(null);
    });

    it('removal unverifiable → MIGRATION_REMOVE_UNVERIFIED', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 30 });
      // Counting works until the first removal; then every print of the users traps.
      sim.faults.set({ removeUnverifiable: true });
      const res = await f.migrate(allocationId, { retirer_local: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(502);
      expect(res.body).to.include({ code: 'MIGRATION_REMOVE_UNVERIFIED', statut: 'ARMEMENT' });
      const retrait = res.body.etapes.find((e: { etape: string }) => e.etape === 'RETRAIT_LOCAL');
      expect(retrait).to.include({ etat: 'REFUSE', code: 'MIGRATION_REMOVE_UNVERIFIED' });
    });

    it('a replay after a stall finishes the removal', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 60 });
      sim.faults.set({ stallRemovalsAfter: 10 });
      expect((await f.migrate(allocationId, { retirer_local: true })).status).to.equal(502);
      sim.faults.clear();
      const res = await f.migrate(allocationId, { retirer_local: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      // retires counts the whole migration: the 10 of the stalled run and the 50 of the replay.
      expect(res.body).to.include({ retires: 60, importes: 60 });
      expect(voucherNames(sim)).to.deep.equal([]);
    });
  });

  it('a second run on the same router while one runs → 409 MIGRATION_IN_PROGRESS', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 20 });
    sim.faults.set({ delayMs: 150 });
    const first = f.migrate(allocationId, { retirer_local: false });
    await waitFor(
      async () => {
        const state = await f.t.request('GET', `${MIGRATION_BASE}/${allocationId}`, { token: f.admin.token });
        return state.status === 200 && state.body.migration.en_cours === true;
      },
      { what: 'the first run to hold the router' },
    );
    const second = await f.migrate(allocationId, { retirer_local: false });
    expect(second.status, JSON.stringify(second.body)).to.equal(409);
    expect(second.body.code).to.equal('MIGRATION_IN_PROGRESS');
    expect((await first).status).to.equal(200);
  });

  describe('route guards and bad input (nothing changed)', () => {
    it('refuses non-administrators, unknown allocations and bad bodies', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 10 });
      expect((await f.migrate(allocationId, { retirer_local: true }, f.client.token)).status).to.equal(403);
      expect((await f.inventaire(allocationId, f.client.token)).status).to.equal(403);
      expect((await f.retour(allocationId, { couper_radius: true }, f.client.token)).status).to.equal(403);
      expect(
        (await f.t.request('POST', `/api/v1/radius/admin/migration/${allocationId}`, { body: {} })).status,
      ).to.equal(401);
      const unknown = await f.migrate('0190a0c0-0000-7000-8000-000000000000', { retirer_local: true });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.code).to.equal('ALLOCATION_NOT_FOUND');
      expect((await f.migrate('not-a-uuid', { retirer_local: true })).status).to.equal(404);
      for (const body of [
        {},
        { retirer_local: 'true' },
        { retirer_local: 1 },
        { retirer_local: true, extra: 1 },
      ]) {
        const res = await f.migrate(allocationId, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('VALIDATION_ERROR');
      }
      for (const body of [{}, { couper_radius: 'yes' }]) {
        expect((await f.retour(allocationId, body)).status, JSON.stringify(body)).to.equal(400);
      }
      expect(voucherNames(sim)).to.have.length(10);
      expect(hotspotUsesRadius(sim).some(Boolean)).to.equal(false);
      const state = await f.t.request('GET', `/api/v1/radius/admin/migration/${allocationId}`, {
        token: f.admin.token,
      });
      expect(state.status).to.equal(404);
      expect(state.body.code).to.equal('MIGRATION_NOT_FOUND');
    });
  });
});
