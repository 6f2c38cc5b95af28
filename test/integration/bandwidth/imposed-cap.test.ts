// The cap another module imposes (the satellite plan's smoothing) as the reconciliation reads it,
// through a fake source: applied at the lower of the two caps, asked once per pass, kept when the
// source fails, dropped when it answers none, and never applied without an enabled programme.
import { expect } from 'chai';
import type { ImposedCaps } from '../../../controller/modules/bandwidth/index.js';
import { forEachDatabase } from '../../support/databases.js';
import { startBandwidthTest, type BwSite, type BwTest } from './bandwidth-fixture.js';

class FakeCaps implements ImposedCaps {
  caps = new Map<string, number>();
  failing = false;
  readonly asked: string[][] = [];

  async capsFor(
    routers: readonly { clientId: string; nasId: string }[],
  ): Promise<ReadonlyMap<string, number>> {
    this.asked.push(routers.map((r) => r.nasId));
    if (this.failing) throw new Error('plan store unavailable');
    return this.caps;
  }
}

forEachDatabase('bandwidth imposed cap', (database) => {
  let t: BwTest;
  let site: BwSite;
  let source: FakeCaps;
  before(async () => {
    t = await startBandwidthTest(database);
    site = await t.bwSite('BWCAP001');
    source = new FakeCaps();
  });
  after(async () => t?.t.close());
  beforeEach(() => t.t.clock.advance(61_000));

  const state = async () => (await t.bw('GET', '/bandwidth/program')).body.programmes[0];
  const journal = async () => (await t.bw('GET', '/bandwidth/activity')).body.activites;

  it('applies nothing while no source is handed over, then the imposed cap below the manager’s', async () => {
    // START_TIME is a Saturday (UTC): a Monday schedule leaves the router uncapped today.
    const res = await t.bw('PUT', '/bandwidth/program', {
      nas_id: site.nasId,
      limit_mbps: 10,
      mode: 'SCHEDULED',
      schedule_weekdays: [1],
    });
    expect(res.status).to.equal(200);
    await t.reconcile();
    expect(site.applied.at(-1)!.cap).to.equal(null);

    t.t.controller.services.bandwidth.useImposedCaps(source);
    source.caps.set(site.nasId, 4);
    expect((await t.reconcile()).body).to.deep.include({ traites: 1, bascules: 1, injoignables: 0 });
    expect(source.asked.at(-1)).to.deep.equal([site.nasId]);
    expect(site.applied.at(-1)!.cap).to.deep.equal({ limit_kbps: 4000, essential_share: 0.25 });
    expect(await state()).to.include({
      etat_souhaite: 'ON',
      etat_constate: 'ON',
      motif: 'PLAFOND_SATELLITE',
    });
    const [entry] = await journal();
    expect(entry).to.include({ type: 'THROTTLE_ON' });
    expect(entry.detail).to.deep.equal({ motif: 'PLAFOND_SATELLITE', limit_mbps: 4 });
    expect(entry.texte).to.match(/à 4 Mbit\/s \(plafond du forfait satellite\)\.$/);
  });

  it('never goes above the manager’s cap, and moves with the source without a new transition', async () => {
    source.caps.set(site.nasId, 25);
    expect((await t.reconcile()).body).to.deep.include({ bascules: 0, poses: 1 });
    expect(site.applied.at(-1)!.cap).to.deep.equal({ limit_kbps: 10_000, essential_share: 0.25 });
    source.caps.set(site.nasId, 1);
    await t.reconcile();
    expect(site.applied.at(-1)!.cap!.limit_kbps).to.equal(1000);
    expect((await journal()).filter((e: { type: string }) => e.type === 'THROTTLE_ON')).to.have.length(1);
  });

  it('keeps the last cap while the source fails, and lifts it when the source answers none', async () => {
    const applied = site.applied.length;
    source.failing = true;
    expect((await t.reconcile()).body).to.deep.include({
      traites: 1,
      poses: 0,
      conformes: 1,
      injoignables: 0,
    });
    expect(site.applied).to.have.length(applied);
    expect(await state()).to.include({ etat_constate: 'ON', motif: 'PLAFOND_SATELLITE' });

    source.failing = false;
    source.caps.set(site.nasId, 0); // not a cap
    expect((await t.reconcile()).body).to.deep.include({ bascules: 1 });
    expect(site.applied.at(-1)!.cap).to.equal(null);
    expect((await journal())[0].type).to.equal('THROTTLE_OFF');
  });

  it('on a scheduled day takes the lower cap under its own motif; a disabled programme takes none', async () => {
    source.caps.set(site.nasId, 3);
    await t.bw('PUT', '/bandwidth/program', {
      nas_id: site.nasId,
      limit_mbps: 10,
      mode: 'SCHEDULED',
      schedule_weekdays: [6],
    });
    await t.reconcile();
    expect(site.applied.at(-1)!.cap!.limit_kbps).to.equal(3000);
    expect(await state()).to.include({ motif: 'JOUR_PROGRAMME' });

    expect((await t.bw('DELETE', `/bandwidth/program/${site.nasId}`)).body).to.deep.include({
      nettoye: true,
    });
    expect(site.applied.at(-1)).to.deep.equal({ cap: null, classes: [], users: [] });
    await t.reconcile();
    expect(site.applied.at(-1)).to.deep.equal({ cap: null, classes: [], users: [] });
    expect(await state()).to.include({ enabled: false, etat_constate: 'OFF' });
    t.t.controller.services.bandwidth.useImposedCaps(null);
  });
});
