// Step 6, the first connection: RADIUS_MIGRATION_WATCH confirms an armed migration once a real
// authentication of a migrated ticket went through the router's NAS (router → agent relay →
// controller RADIUS), and its flags switch it off or leave the confirmation to an administrator.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { MigrationFixture, MIGRATION_BASE, routerUsers, type Site } from './migration-fixture.js';

forEachDatabase('Migration watch (first real authentication through the relay)', (database) => {
  let f: MigrationFixture;
  afterEach(() => f.stop());

  const runWatch = () =>
    f.t.request('POST', '/api/v1/admin/jobs/RADIUS_MIGRATION_WATCH/run', { token: f.admin.token });
  const state = async (allocationId: string) =>
    (await f.t.request('GET', `${MIGRATION_BASE}/${allocationId}`, { token: f.admin.token })).body.migration;

  /** Migrates the site and logs one of its former local users in through RADIUS. */
  async function migrateAndLogIn(site: Site): Promise<string> {
    const local = [...routerUsers(site.sim).values()].find(
      (u) => u.name !== 'default-trial' && u.disabled !== 'true' && (u.uptime ?? '0s') === '0s',
    )!;
    const res = await f.migrate(site.allocationId, { retirer_local: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // Nothing happened yet: the watch leaves the migration armed.
    expect((await runWatch()).status).to.equal(200);
    expect(await state(site.allocationId)).to.include({ statut: 'ARMEMENT', premiere_connexion: null });

    const login = await site.sim.hotspotLogin({
      user: local.name!,
      password: local.password ?? '',
      mac: 'AA:BB:CC:00:00:01',
      ip: '10.5.50.11',
    });
    expect(login.ok, JSON.stringify(login)).to.equal(true);
    expect(login.radius, 'decided by RADIUS').to.equal(true);
    await site.sim.flushRadius();
    return local.name!;
  }

  it('confirms the armed migration at the first real authentication, naming the user', async function () {
    this.timeout(60_000);
    f = new MigrationFixture(database);
    await f.start({ relay: true });
    const site = await f.site({ users: 25 });
    const user = await migrateAndLogIn(site);
    const run = await runWatch();
    expect(run.status, JSON.stringify(run.body)).to.equal(200);
    const after = await state(site.allocationId);
    expect(after.statut).to.equal('CONFIRMEE');
    expect(after.premiere_connexion.utilisateur).to.equal(user);
    expect(after.confirmed_at).to.be.a('string');
  });

  it('RADIUS_READY_AUTO_CONFIRM_ENABLED off: records the user; an administrator confirms', async function () {
    this.timeout(60_000);
    f = new MigrationFixture(database);
    await f.start({ relay: true, config: { radiusReadyAutoConfirmEnabled: false } });
    const site = await f.site({ users: 10 });
    const early = await f.t.request('POST', `${MIGRATION_BASE}/${site.allocationId}/confirmation`, {
      token: f.admin.token,
    });
    expect(early.status).to.equal(404);
    const user = await migrateAndLogIn(site);
    expect((await runWatch()).status).to.equal(200);
    const seen = await state(site.allocationId);
    expect(seen.statut).to.equal('ARMEMENT');
    expect(seen.premiere_connexion.utilisateur).to.equal(user);
    const confirmed = await f.t.request('POST', `${MIGRATION_BASE}/${site.allocationId}/confirmation`, {
      token: f.admin.token,
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
    expect(confirmed.body.migration.statut).to.equal('CONFIRMEE');
  });

  it('RADIUS_MIGRATION_WATCH_ENABLED off: the job is skipped', async function () {
    this.timeout(60_000);
    f = new MigrationFixture(database);
    await f.start({ relay: true, config: { radiusMigrationWatchEnabled: false } });
    const site = await f.site({ users: 10 });
    await migrateAndLogIn(site);
    const run = await runWatch();
    expect(run.status).to.equal(200);
    expect(run.body.data.status).to.equal('SKIPPED');
    expect((await state(site.allocationId)).statut).to.equal('ARMEMENT');
  });
});
