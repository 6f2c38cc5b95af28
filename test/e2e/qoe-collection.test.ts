// Network-quality collection end to end: a RouterOS simulator on a satellite link (600 ms, 2 percent
// of echoes lost, counters that restart at a reboot) with the real agent runtime, over real sockets
// (test/support/live-site.ts). RouterOS 6.49 measures by /ping, 7.19 by its netwatch ICMP probes
// (jitter, the mean gap between successive round trips, by /ping on both).
// Seen through the client's routes: the first point, counted intervals, a reboot, an outage whose
// points wait in the outbox and arrive once and in order, and the status following the link.
import { expect } from 'chai';
import type { RunningAgent } from '../../agent/runtime/agent-runtime.js';
import { QOE_NETWATCH_MARK } from '../../agent/telemetry/link-quality.js';
import { ManualClock } from '../../controller/core/clock.js';
import { eventually } from '../integration/hub/hub-fixture.js';
import { addInterfaceTraffic } from '../routeros-sim/qos-menus.js';
import { SATELLITE_LINK } from '../routeros-sim/wan-link.js';
import { forEachDatabase } from '../support/databases.js';
import { SIM_PASSWORD, startLiveStack, type LiveStack } from '../support/live-site.js';
import { startLoopbackAgent } from '../support/loopback-agent.js';

const GB = 1e9;
const MINUTE = 60_000;

forEachDatabase('qoe collection from satellite routers', (database) => {
  let stack: LiveStack | undefined;
  const agents: RunningAgent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.stop();
    await stack?.close();
    stack = undefined;
  });

  for (const [version, serial, source] of [
    ['6.49.10', 'A0E20649', 'ping'],
    ['7.19', 'A0E20719', 'netwatch'],
  ] as const) {
    it(`collects from RouterOS ${version} (${source}): first point, intervals, reboot, outage, status`, async function () {
      this.timeout(120_000);
      const clock = new ManualClock(new Date('2026-11-22T10:00:00.000Z'));
      const live = (stack = await startLiveStack(database, { clock }));
      const site = await live.addSite({
        serial,
        version,
        wanLink: SATELLITE_LINK,
        agentNow: () => clock.now(),
      });
      const { sim } = site;
      const enrolled = await live.radius('POST', '/nas', { router_serial: serial, apply_mode: 'app_apply' });
      expect(enrolled.status, JSON.stringify(enrolled.body)).to.equal(201);
      const nasId = enrolled.body.nas.id as string;
      const db = live.t.db.db;
      const points = () =>
        db
          .selectFrom('qoe_points')
          .select(['observed_at', 'received_at', 'rtt_ms', 'packet_loss_pct', 'wan_rx_bytes'])
          .where('nas_id', '=', nasId)
          .orderBy('observed_at')
          .execute();
      const status = async () => (await live.radius('GET', '/qoe/status')).body;
      const usage = async () => (await live.radius('GET', '/qoe/usage')).body.nas[0];
      let agent = site.agent;
      /** Moves time on, adds WAN traffic, lets netwatch probe, and has the agent take a point. */
      const step = async (ms: number, rx: number, tx = 0) => {
        clock.advance(ms);
        addInterfaceTraffic(sim.state, 'ether1', rx, tx);
        await sim.lan.probeAll();
        await agent.qoe.collect();
      };
      const arrived = (n: number) => eventually(points, (p) => p.length === n, 15_000);

      // First point: the base of the usage, nothing counted; the status shows the dish as it is.
      addInterfaceTraffic(sim.state, 'ether1', 40 * GB, 2 * GB);
      await agent.qoe.collect();
      await arrived(1);
      let s = await status();
      expect(s.nas).to.have.length(1);
      expect(s.nas[0]).to.include({
        nas_id: nasId,
        observed_at: '2026-11-22T10:00:00.000Z',
        wan_rx_bytes: 40 * GB,
        wan_tx_bytes: 2 * GB,
        tx_bps: null,
        rx_bps: null,
      });
      expect(s.nas[0].rtt_ms).to.be.within(580, 620);
      // Echoes spread ±20 ms: successive gaps average about 13 ms (max − min of a probe is near 40).
      expect(s.nas[0].jitter_ms).to.be.within(0, 30);
      expect(s.congested_nas).to.deep.equal([]);
      expect(await usage()).to.include({ daily_gb: 0 });

      // 60 s later: 3 GB counted, and the rates of the interval.
      await step(MINUTE, 2 * GB, 1 * GB);
      await arrived(2);
      s = await status();
      expect(s.nas[0]).to.include({
        rx_bps: Math.round((2 * GB * 8) / 60),
        tx_bps: Math.round((1 * GB * 8) / 60),
      });
      expect(await usage()).to.include({ daily_gb: 3 });

      // Where the figures come from: netwatch ICMP probes on 7.4+, kept by the agent; /ping before.
      const probes = sim.state
        .table('/tool/netwatch')
        .list()
        .filter((r) => (r.props.comment ?? '').startsWith(QOE_NETWATCH_MARK));
      if (source === 'netwatch') {
        expect(probes.map((p) => [p.props.host, p.props.type])).to.have.deep.members([
          ['1.1.1.1', 'icmp'],
          ['8.8.8.8', 'icmp'],
        ]);
        expect(Number(probes[0]!.props['sent-count'])).to.be.greaterThan(0);
      } else {
        expect(probes).to.deep.equal([]);
      }

      // A reboot: the counters start again from zero, that interval counts nothing and the next does.
      await sim.reboot();
      await step(MINUTE, 1 * GB);
      await step(MINUTE, 2 * GB);
      await arrived(4);
      expect(await usage()).to.include({ daily_gb: 5 });

      // An outage: the agent stops, an agent on the same state cannot reach the controller and keeps
      // its points in the outbox; back online, they arrive once, in order, and every interval counts.
      await agent.stop();
      const offline = await startLoopbackAgent({
        stateDir: site.stateDir,
        controllerUrl: 'http://127.0.0.1:9',
        enrolCode: 'unused',
        router: { port: sim.port, password: SIM_PASSWORD },
        now: () => clock.now(),
      });
      agents.push(offline);
      agent = offline;
      for (let i = 0; i < 4; i++) await step(MINUTE, 1 * GB);
      expect(offline.outbox.size).to.be.at.least(4);
      await offline.stop();
      expect((await points()).length).to.equal(4);
      const ingestion = live.t.controller.services.qoe.ingestion;
      const before = { ...ingestion.stats };
      const back = await startLoopbackAgent({
        stateDir: site.stateDir,
        controllerUrl: live.baseUrl,
        enrolCode: 'unused',
        router: { port: sim.port, password: SIM_PASSWORD },
        now: () => clock.now(),
      });
      agents.push(back);
      agent = back;
      await eventually(
        async () => back.outbox.size,
        (n) => n === 0,
        15_000,
      );
      const stored = await arrived(8);
      expect(stored.map((p) => p.observed_at)).to.deep.equal(
        [0, 1, 2, 3, 4, 5, 6, 7].map((m) => new Date(Date.UTC(2026, 10, 22, 10, m)).toISOString()),
      );
      // Received in the order they were taken; sent in one frame (a batch of the backlog), so
      // stored in one transaction.
      const replayed = stored.slice(4).map((p) => p.received_at);
      expect([...replayed].sort()).to.deep.equal(replayed);
      expect({
        batches: ingestion.stats.batches - before.batches,
        points: ingestion.stats.points - before.points,
      }).to.deep.equal({ batches: 1, points: 4 });
      expect(await usage()).to.include({ daily_gb: 9 });

      // Over the points the dish lost some echoes, never most, and stayed near 600 ms.
      const losses = stored.map((p) => Number(p.packet_loss_pct));
      expect(Math.max(...losses)).to.be.greaterThan(0);
      expect(Math.max(...losses)).to.be.at.most(10);
      for (const p of stored) expect(Number(p.rtt_ms)).to.be.within(580, 620);

      // The link degrades to 950 ms: against its own 600 ms baseline the NAS is congested now.
      sim.setWanLink({ ...SATELLITE_LINK, rttMs: 950 });
      await sim.lan.probeAll();
      await step(MINUTE, 0);
      await arrived(9);
      s = await status();
      expect(s.nas[0].rtt_ms).to.be.within(930, 970);
      // The probes have run by now on 7.19: still the mean gap, not their max − min.
      expect(s.nas[0].jitter_ms).to.be.within(0, 30);
      expect(s.congested_nas).to.deep.equal([nasId]);
      expect((await usage()).congested).to.equal(true);
    });
  }
});
