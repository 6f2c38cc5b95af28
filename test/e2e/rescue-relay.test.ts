// The rescue relay (Back To Home under /ip/cloud) end to end: the real agent enables it on
// simulated routers per version and model, the profile is read only once 25 s have passed (the
// controller's and the router's clocks are one manual clock here) and kept sealed; firewall,
// addresses and routes are compared before and after; no channel is ever made for it.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ManualClock } from '../../controller/core/clock.js';
import {
  startRemoteAccess,
  type RemoteAccessTest,
} from '../integration/remote-access/remote-access-fixture.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { RouterSim } from '../routeros-sim/router-sim.js';
import { forEachDatabase } from '../support/databases.js';
import { startLoopbackAgent } from '../support/loopback-agent.js';
import { START_TIME } from '../support/test-controller.js';

const PASSWORD = 'sim-pass';

forEachDatabase('rescue relay end to end', (database) => {
  let h: RemoteAccessTest;
  let clock: ManualClock;
  let admin: { token: string };
  const cleanups: (() => Promise<unknown>)[] = [];
  before(async () => {
    clock = new ManualClock(START_TIME);
    h = await startRemoteAccess(database, { clock, listen: true });
    admin = await h.t.admin();
  });
  after(async () => {
    for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await h.close();
  });

  async function site(serial: string, version: string, architecture: 'arm' | 'arm64' | 'mipsbe') {
    const bundle = (await h.resolve({ routeros_version: version, router_serial: serial })).body.data;
    const sim = new RouterSim({ serial, version, architecture, password: PASSWORD, now: () => clock.now() });
    await sim.start();
    cleanups.push(() => sim.stop());
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-rescue-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const agent = await startLoopbackAgent({
      stateDir,
      controllerUrl: h.baseUrl,
      enrolCode: bundle.enrolment.code,
      router: { port: sim.port, password: PASSWORD },
    });
    cleanups.push(() => agent.stop());
    await eventually(
      () =>
        h.t.request('GET', `/api/v1/clients/allocations/${bundle.allocation_id}`, { token: h.client.token }),
      (r) => r.body.data.link_state === 'CONNECTED' && r.body.data.router.routeros_version !== null,
      15_000,
    );
    return { id: bundle.allocation_id as string, sim };
  }
  const tables = (sim: RouterSim) =>
    JSON.stringify(
      [
        '/ip/firewall/filter',
        '/ip/firewall/nat',
        '/ip/firewall/address-list',
        '/ip/address',
        '/ip/route',
      ].map((m) =>
        sim.state
          .menu(m)
          ?.list()
          .map((r) => r.props),
      ),
    );
  const enable = (id: string) =>
    h.t.request('POST', '/api/v1/clients/remote-access/rescue', {
      token: h.client.token,
      body: { allocation_id: id },
    });
  const status = async (id: string) =>
    (
      await h.t.request('GET', `/api/v1/clients/remote-access/rescue?allocation_id=${id}`, {
        token: h.client.token,
      })
    ).body.data;
  const runJob = async () => {
    const res = await h.t.request('POST', '/api/v1/admin/jobs/REMOTE_ACCESS_RESCUE_READ/run', {
      token: admin.token,
    });
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 202]);
  };
  const reads = async (id: string) =>
    Number(
      (
        await h.t.db.db
          .selectFrom('agent_commands')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('allocation_id', '=', id)
          .where('name', '=', 'vpn.rescue.read')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('7.19 arm64: DDNS then the relay, per-user entry in back-to-home-user, read after 25 s, kept sealed', async () => {
    const { id, sim } = await site('B7190A', '7.19', 'arm64');
    const before = tables(sim);
    const writes: Record<string, string>[] = [];
    sim.state.table('/ip/cloud').on('change', (kind: string, rec: { props: Record<string, string> }) => {
      if (kind === 'set') writes.push({ ...rec.props });
    });
    const res = await enable(id);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    // Dynamic DNS first, then the relay.
    expect(writes.map((w) => [w['ddns-enabled'], w['back-to-home-vpn'] ?? 'unset'])).to.deep.equal([
      ['true', 'unset'],
      ['true', 'enabled'],
    ]);
    expect(res.body.data.state).to.equal('ENABLING');
    const cloud = sim.state.table('/ip/cloud').single().props;
    expect(cloud).to.include({ 'ddns-enabled': 'true', 'back-to-home-vpn': 'enabled' });
    const user = sim.state.table('/ip/cloud/back-to-home-user').findBy('name', 'ticketnet-rescue')!;
    expect(user.props['allow-lan']).to.equal('true');
    expect(sim.state.menu('/ip/cloud/back-to-home-users')).to.equal(undefined);

    // At 6 s the profile is incomplete: the job does not even ask before 25 s.
    clock.advance(6_000);
    await runJob();
    expect(await reads(id)).to.equal(0);
    expect((await status(id)).state).to.equal('ENABLING');
    clock.advance(20_000);
    await runJob();
    expect(await reads(id)).to.equal(1);
    const s = await status(id);
    expect(s).to.include({ state: 'READY', profile_stored: true });
    expect(JSON.stringify(s)).to.not.include(user.props['private-key']!);

    expect(tables(sim)).to.equal(before);
    const bundle = (await h.resolve({ routeros_version: '7.19', allocation_id: id })).body.data;
    expect(bundle.rescue_relay.state).to.equal('READY');
    expect(bundle.transport_channels.map((c: { role: string }) => c.role)).to.not.include('RESCUE');
    const dump = JSON.stringify([
      (await sql`select * from remote_access_slots`.execute(h.t.db.db)).rows,
      (await sql`select * from agent_commands`.execute(h.t.db.db)).rows,
    ]);
    expect(dump).to.not.include(user.props['private-key']!);
    expect(h.logs.join('\n')).to.not.include(user.props['private-key']!);
  });

  it('7.15 arm: the per-user menu is back-to-home-users', async () => {
    const { id, sim } = await site('B7150B', '7.15', 'arm');
    expect((await enable(id)).body.data.state).to.equal('ENABLING');
    expect(sim.state.table('/ip/cloud/back-to-home-users').findBy('name', 'ticketnet-rescue')).to.not.equal(
      undefined,
    );
    expect(sim.state.menu('/ip/cloud/back-to-home-user')).to.equal(undefined);
  });

  for (const [serial, version, arch] of [
    ['B7110C', '7.11', 'arm64'],
    ['B7190D', '7.19', 'mipsbe'],
  ] as const)
    it(`${version} ${arch}: unavailable on this model, not failed, and nothing touched`, async () => {
      const { id, sim } = await site(serial, version, arch);
      const before = JSON.stringify(sim.state.table('/ip/cloud').single().props) + tables(sim);
      const res = await enable(id);
      expect(res.status).to.equal(202);
      expect(res.body.data.state).to.equal('UNAVAILABLE_ON_MODEL');
      expect(JSON.stringify(sim.state.table('/ip/cloud').single().props) + tables(sim)).to.equal(before);
      const bundle = (await h.resolve({ routeros_version: version, allocation_id: id })).body.data;
      expect(bundle.warnings).to.include('RESCUE_UNAVAILABLE_ON_MODEL');
    });
});
