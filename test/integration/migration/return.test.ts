// Return to local accounts with the real pieces over real sockets, on both databases: profiles and
// accounts back from the backup in batches of 40, verified by the router's own list, RADIUS cut
// last and never when the restoration is not complete.
import { expect } from 'chai';
import { sql } from 'kysely';
import { forEachDatabase } from '../../support/databases.js';
import { hotspotUsesRadius, MigrationFixture, routerUsers, voucherNames } from './migration-fixture.js';

const RETURN_STEPS = ['LECTURE_SAUVEGARDE', 'PROFILS', 'COMPTES', 'VERIFICATION', 'RADIUS_COUPE'];

forEachDatabase('Return to local accounts (controller, agent runtime, RouterOS simulator)', (database) => {
  let f: MigrationFixture;

  beforeEach(async () => {
    f = new MigrationFixture(database);
    await f.start();
  });
  afterEach(() => f.stop());

  /** A router migrated with removal: its vouchers before, as the router held them. */
  async function migrated(users: number) {
    const site = await f.site({ users });
    const before = routerUsers(site.sim);
    const res = await f.migrate(site.allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(voucherNames(site.sim)).to.deep.equal([]);
    return { ...site, before };
  }

  it('restores profiles and accounts, verifies by count, cuts RADIUS last; /radius stays', async function () {
    this.timeout(60_000);
    const { sim, allocationId, before } = await migrated(130);
    // Two tickets sold in RADIUS since the switch: the return cannot bring them to the router.
    const { tickets, profiles } = f.t.controller.services;
    const [profile] = await profiles.listProfiles(f.client.id);
    await tickets.createTickets(f.client.id, { profileId: profile!.name, quantity: 2 });

    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ success: true, statut: 'REVENU_EN_LOCAL', comptes_restaures: 130 });
    expect(res.body.sauvegarde_datee_du).to.be.a('string');
    expect(res.body.etapes.map((e: { etape: string }) => e.etape)).to.deep.equal(RETURN_STEPS);
    for (const e of res.body.etapes) expect(e.etat, e.etape).to.equal('OK');
    expect(res.body.ecart_avec_radius.connu).to.equal(true);
    expect(res.body.ecart_avec_radius.ecart).to.equal(2);
    expect(res.body.ecart_avec_radius.avertissement).to.include('2 tickets');

    // Every account back with its password, profile, limits and comment.
    const after = routerUsers(sim);
    for (const [name, props] of before) {
      const now = after.get(name);
      expect(now, name).to.not.equal(undefined);
      for (const key of ['password', 'profile', 'comment', 'disabled'] as const) {
        expect(now![key] ?? '', `${name} ${key}`).to.equal(props[key] ?? '');
      }
    }
    expect(hotspotUsesRadius(sim).some(Boolean)).to.equal(false);
    expect(sim.state.table('/radius').list()).to.have.length(1);

    const state = await f.t.request('GET', `/api/v1/radius/admin/migration/${allocationId}`, {
      token: f.admin.token,
    });
    expect(state.body.migration).to.include({ statut: 'REVENU_EN_LOCAL' });
  });

  it('couper_radius false restores and keeps RADIUS on; a second return changes nothing', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await migrated(45);
    const first = await f.retour(allocationId, { couper_radius: false });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body.etapes.at(-1)).to.include({ etape: 'RADIUS_COUPE', etat: 'NON_DEMANDE' });
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
    const again = await f.retour(allocationId, { couper_radius: false });
    expect(again.status).to.equal(200);
    expect(again.body.comptes_restaures).to.equal(45);
    expect(voucherNames(sim)).to.have.length(45);
  });

  it('restore interrupted → RESTORE_USERS_FAILED, RADIUS not cut, a replay completes', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await migrated(100);
    sim.faults.set({
      failCommand: { path: '/ip/hotspot/user/add', message: 'failure: busy', afterCalls: 50 },
    });
    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body).to.include({ success: false, code: 'RESTORE_USERS_FAILED', statut: 'ARMEMENT' });
    expect(res.body.etapes.at(-1)).to.include({ etape: 'COMPTES', etat: 'ECHEC' });
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
    expect(voucherNames(sim).length).to.be.within(40, 60);

    sim.faults.clear();
    const replay = await f.retour(allocationId, { couper_radius: true });
    expect(replay.status, JSON.stringify(replay.body)).to.equal(200);
    expect(voucherNames(sim)).to.have.length(100);
    expect(hotspotUsesRadius(sim).some(Boolean)).to.equal(false);
  });

  it('restore incomplete → RESTORE_INCOMPLETE by count, RADIUS stays on', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await migrated(90);
    sim.faults.set({ stallAddsAfter: 70 });
    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(502);
    expect(res.body).to.include({ code: 'RESTORE_INCOMPLETE', comptes_restaures: 70 });
    expect(res.body.etapes.at(-1)).to.include({
      etape: 'VERIFICATION',
      etat: 'ECHEC',
      attendus: 90,
      presents: 70,
    });
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
  });

  it('a router never switched to RADIUS: ecart unknown (connu false, ecart null), not zero', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 15 });
    sim.faults.set({ failCommand: { path: '/radius/add', message: 'failure: not enough permissions' } });
    expect((await f.migrate(allocationId, { retirer_local: true })).status).to.equal(502);
    sim.faults.clear();
    const res = await f.retour(allocationId, { couper_radius: false });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.ecart_avec_radius).to.include({ connu: false, ecart: null });
    expect(res.body.ecart_avec_radius.avertissement).to.be.a('string');
    expect(res.body.comptes_restaures).to.equal(15);
  });

  it('no backup → RESTORE_NO_BACKUP; nothing sent to the router', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await f.site({ users: 10 });
    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body).to.include({ success: false, code: 'RESTORE_NO_BACKUP' });
    expect(voucherNames(sim)).to.have.length(10);
  });

  it('a backup that does not match its checksum → RESTORE_BACKUP_UNREADABLE, not zero accounts', async function () {
    this.timeout(60_000);
    const { sim, allocationId } = await migrated(20);
    await sql`update radius_migration_backups set accounts_json = ${'{"profiles":[],"users":[]}'}`.execute(
      f.t.controller.database.db,
    );
    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.code).to.equal('RESTORE_BACKUP_UNREADABLE');
    expect(voucherNames(sim)).to.deep.equal([]);
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
  });

  it('a backup without restorable accounts → RESTORE_BACKUP_EMPTY', async function () {
    this.timeout(60_000);
    // A router with only default-trial: the migration backs up zero vouchers.
    const { sim, allocationId } = await f.site({ users: 0 });
    expect((await f.migrate(allocationId, { retirer_local: true })).status).to.equal(200);
    const res = await f.retour(allocationId, { couper_radius: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body.code).to.equal('RESTORE_BACKUP_EMPTY');
    expect(hotspotUsesRadius(sim).every(Boolean)).to.equal(true);
  });
});
