// The migration inventory: read only, through the agent, every field docs/api/migration.md lists,
// and each refusal motif; a refused migration touches nothing on the router.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { hotspotUsesRadius, MigrationFixture, voucherNames } from './migration-fixture.js';

const MIB = 1_048_576;

forEachDatabase('Migration inventory (controller, agent runtime, RouterOS simulator)', (database) => {
  let f: MigrationFixture;
  afterEach(() => f.stop());

  async function refusedMigration(allocationId: string, motif: string) {
    const res = await f.migrate(allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(409);
    expect(res.body).to.include({ success: false, code: 'MIGRATION_NOT_ALLOWED' });
    expect(res.body.details.motif).to.equal(motif);
    expect(res.body.inventaire).to.include({ autorise: false, motif });
  }

  describe('with a RADIUS licence', () => {
    beforeEach(async () => {
      f = new MigrationFixture(database);
      await f.start();
    });

    it('answers every field for a router that may migrate, and changes nothing', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 75, freeHddBytes: 60 * MIB + 1234 });
      const res = await f.inventaire(allocationId);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({
        success: true,
        allocation_id: allocationId,
        nas_id: null,
        routeur: '4C0FFEE01A',
        licence_active: true,
        tunnel_joignable: true,
        comptes_locaux: 75,
        espace_flash_mo: 60,
        autorise: true,
        motif: null,
        motif_texte: null,
        avertissements: res.body.avertissements,
      });
      expect(res.body.avertissements).to.be.an('array');
      expect(res.body.avertissements.join(' ')).to.include('NAS RADIUS');
      expect(voucherNames(sim)).to.have.length(75);
      expect(hotspotUsesRadius(sim).some(Boolean)).to.equal(false);
      expect(
        sim.state
          .table('/file')
          .list()
          .filter((x) => String(x.props.name).endsWith('.backup')),
      ).to.deep.equal([]);
    });

    it('ROUTEUR_INJOIGNABLE when the agent link is down: comptes_locaux null', async function () {
      this.timeout(60_000);
      const { agent, allocationId } = await f.site({ users: 10 });
      await agent.stop();
      await f.waitLink(allocationId, 'DISCONNECTED');
      const res = await f.inventaire(allocationId);
      expect(res.body).to.include({
        autorise: false,
        motif: 'ROUTEUR_INJOIGNABLE',
        tunnel_joignable: false,
        comptes_locaux: null,
      });
      expect(res.body.motif_texte).to.be.a('string').and.not.equal('');
      await refusedMigration(allocationId, 'ROUTEUR_INJOIGNABLE');
    });

    it('INVENTAIRE_ILLISIBLE when the users cannot be read: null, not zero', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 10 });
      sim.faults.set({ failCommand: { path: '/ip/hotspot/user/print', message: 'failure: busy' } });
      const res = await f.inventaire(allocationId);
      expect(res.body).to.include({
        autorise: false,
        motif: 'INVENTAIRE_ILLISIBLE',
        tunnel_joignable: true,
        comptes_locaux: null,
      });
      await refusedMigration(allocationId, 'INVENTAIRE_ILLISIBLE');
      sim.faults.clear();
      expect(voucherNames(sim)).to.have.length(10);
    });

    it('ESPACE_FLASH_INSUFFISANTE under 25 Mo (24.9 Mo is under)', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 10, freeHddBytes: 25 * MIB - 1 });
      const res = await f.inventaire(allocationId);
      expect(res.body).to.include({
        autorise: false,
        motif: 'ESPACE_FLASH_INSUFFISANTE',
        espace_flash_mo: 24,
      });
      expect(res.body.motif_texte).to.include('24 Mo');
      await refusedMigration(allocationId, 'ESPACE_FLASH_INSUFFISANTE');
      expect(voucherNames(sim)).to.have.length(10);
    });

    it('TROP_DE_COMPTES above 15 000 local accounts (15 000 passes)', async function () {
      this.timeout(120_000);
      const { sim, allocationId } = await f.site({ users: 15_001 });
      const res = await f.inventaire(allocationId);
      expect(res.body).to.include({
        autorise: false,
        motif: 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE',
        comptes_locaux: 15_001,
      });
      await refusedMigration(allocationId, 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE');
      // One account fewer: allowed.
      const one = sim.state
        .table('/ip/hotspot/user')
        .list()
        .find((u) => u.props.name !== 'default-trial')!;
      sim.state.table('/ip/hotspot/user').delete(one);
      const ok = await f.inventaire(allocationId);
      expect(ok.body).to.include({ autorise: true, comptes_locaux: 15_000 });
    });

    it('answers 404 for an unknown allocation and 403 to a client', async function () {
      this.timeout(60_000);
      const { allocationId } = await f.site({ users: 1 });
      expect((await f.inventaire(allocationId, f.client.token)).status).to.equal(403);
      const res = await f.inventaire('0190a0c0-0000-7000-8000-000000000000');
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('ALLOCATION_NOT_FOUND');
    });
  });

  describe('without a RADIUS licence', () => {
    beforeEach(async () => {
      f = new MigrationFixture(database);
      await f.start({ licence: false });
    });

    it('LICENCE_RADIUS_INACTIVE first, and the migration is refused', async function () {
      this.timeout(60_000);
      const { sim, allocationId } = await f.site({ users: 10 });
      const res = await f.inventaire(allocationId);
      expect(res.body).to.include({
        autorise: false,
        motif: 'LICENCE_RADIUS_INACTIVE',
        licence_active: false,
        comptes_locaux: 10,
      });
      await refusedMigration(allocationId, 'LICENCE_RADIUS_INACTIVE');
      expect(voucherNames(sim)).to.have.length(10);
      const notices = await f.notices();
      expect(notices.map((n) => n.etape)).to.deep.equal(['ECHEC']);
    });
  });
});
