// What the migration asks the agent for, and in which shape: the accounts in columns, the local
// accounts counted on the agent, the names sent once (in the removal batches) and not listed
// before the removal. An agent that predates the compact commands migrates the same router to the
// same backup through the older ones.
import { expect } from 'chai';
import { routerCatalogue, type CommandCatalogue } from '../../../agent/commands/command-catalogue.js';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import { forEachDatabase } from '../../support/databases.js';
import { MigrationFixture, routerUsers, sentCommands, voucherNames } from './migration-fixture.js';

/** The catalogue of an agent build from before `hotspot.users.columns` and `hotspot.users.tally`. */
function olderCatalogue(): CommandCatalogue {
  const {
    'hotspot.users.columns': _columns,
    'hotspot.users.tally': _tally,
    ...older
  } = routerCatalogue(SILENT_LOGGER);
  return older as CommandCatalogue;
}

forEachDatabase('Migration: compact reads through the agent', (database) => {
  let f: MigrationFixture;

  beforeEach(async () => {
    f = new MigrationFixture(database);
    await f.start();
  });
  afterEach(() => f.stop());

  const backupJson = async (allocationId: string) =>
    (
      await f.t.db.db
        .selectFrom('radius_migration_backups')
        .select('accounts_json')
        .where('allocation_id', '=', allocationId)
        .executeTakeFirstOrThrow()
    ).accounts_json;

  it('columns, a count, names once; an older agent gets the older commands and the same backup', async function () {
    this.timeout(90_000);
    // Two routers with the same accounts (same serial, same seed): one agent of this build, one older.
    const current = await f.site({ users: 120 });
    const older = await f.site({ users: 120, catalogue: olderCatalogue() });
    expect(voucherNames(current.sim)).to.deep.equal(voucherNames(older.sim));
    const accounts = routerUsers(current.sim);

    for (const site of [current, older]) {
      const inventory = await f.inventaire(site.allocationId);
      expect(inventory.status, JSON.stringify(inventory.body)).to.equal(200);
      expect(inventory.body).to.include({ comptes_locaux: 120, autorise: true });
      const res = await f.migrate(site.allocationId, { retirer_local: true });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ importes: 120, retires: 120 });
      const retrait = res.body.etapes.find((e: { etape: string }) => e.etape === 'RETRAIT_LOCAL');
      expect(retrait).to.include({ etat: 'OK', retires: 120, restes: 0 });
      expect(voucherNames(site.sim)).to.deep.equal([]);
    }

    // This build: no row export, no listing before the removal; the one listing comes after it.
    const sent = await sentCommands(f, current.allocationId);
    const names = sent.map((c) => c.name);
    expect(names).to.include.members(['hotspot.users.tally', 'hotspot.users.columns']);
    expect(names).to.not.include('hotspot.users.export');
    const listings = sent.filter((c) => c.name === 'hotspot.users.names');
    expect(listings).to.have.length(1);
    expect(JSON.parse(listings[0]!.output!)).to.deep.equal({ names: [], count: 0 });
    const removals = sent.filter((c) => c.name === 'hotspot.users.remove');
    const removedNames = removals.flatMap((c) => (JSON.parse(c.params) as { names: string[] }).names);
    expect(removedNames).to.have.length(120);
    expect(removedNames).to.not.include('default-trial');

    // The older build: UNKNOWN_COMMAND, then the export and the listing as before.
    const olderNames = (await sentCommands(f, older.allocationId)).map((c) => c.name);
    expect(olderNames).to.include.members(['hotspot.users.export', 'hotspot.users.names']);

    // The same accounts kept, to the byte, and they are the router's.
    const kept = await backupJson(current.allocationId);
    expect(kept).to.equal(await backupJson(older.allocationId));
    const users = (JSON.parse(kept) as { users: { name: string; password?: string; profile: string }[] })
      .users;
    expect(users).to.have.length(120);
    for (const u of users) {
      const onRouter = accounts.get(u.name);
      expect(u.password, u.name).to.equal(onRouter?.password);
      expect(u.profile, u.name).to.equal(onRouter?.profile);
    }
  });
});
