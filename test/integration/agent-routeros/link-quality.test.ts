// The link's round trip, jitter and loss as the agent measures them on a simulated router whose
// echoes are known one by one. Jitter is the mean gap between successive round trips on every
// version: RouterOS 7.4+ netwatch ICMP probes give the round trip and loss, but their `rtt-jitter`
// is max − min of a test, so the jitter comes from a short /ping; before 7.4 /ping gives all three.
import { expect } from 'chai';
import { RouterConnection } from '../../../agent/routeros/router-connection.js';
import { capabilitiesFor } from '../../../agent/routeros/capabilities.js';
import { measureLinkQuality, QOE_NETWATCH_MARK } from '../../../agent/telemetry/link-quality.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import type { WanLinkProfile } from '../../routeros-sim/wan-link.js';

const TARGETS = ['1.1.1.1'];
const PING = { count: 5, intervalMs: 10 };
/** A probe's 20 echoes climbing 5 ms each: mean 647.5 ms, max − min 95 ms, mean gap 5 ms. */
const RAMP: WanLinkProfile = {
  rttMs: 600,
  spreadMs: 0,
  lossPct: 0,
  sequenceMs: Array.from({ length: 20 }, (_, i) => 600 + 5 * i),
};
/** Pings alternating 600 and 610 ms: mean gap 10 ms, mean 604 ms. */
const SEESAW: WanLinkProfile = { rttMs: 600, spreadMs: 0, lossPct: 0, sequenceMs: [600, 610] };

describe('agent link quality on a simulated router', () => {
  let sim: RouterSim | undefined;
  let router: RouterConnection | undefined;
  afterEach(async () => {
    await router?.close();
    await sim?.stop();
    sim = router = undefined;
  });

  const start = async (version: string) => {
    sim = new RouterSim({ serial: 'A0E2A11A', version, password: 'secret', wanLink: RAMP });
    await sim.start();
    router = new RouterConnection({ host: '127.0.0.1', port: sim.port, user: 'admin', password: 'secret' });
    return { sim, router };
  };
  const measure = (r: RouterConnection, version: string) =>
    measureLinkQuality(r, TARGETS, {
      netwatchIcmp: capabilitiesFor(version).netwatchIcmp,
      intervalS: 60,
      ping: PING,
    });

  it("7.19: round trip and loss from the netwatch probe, jitter the mean gap of a /ping, not netwatch's max − min", async () => {
    const { sim, router } = await start('7.19');
    // No probe has run yet: the /ping gives all three (the ramp's first five echoes).
    expect(await measure(router, '7.19')).to.deep.equal({
      rtt_ms: 610,
      jitter_ms: 5,
      packet_loss_pct: 0,
      source: 'ping',
    });
    const probe = () =>
      sim.state
        .table('/tool/netwatch')
        .list()
        .find((r) => r.props.comment === `${QOE_NETWATCH_MARK}1.1.1.1`)!.props;
    expect(probe()).to.include({ type: 'icmp', host: '1.1.1.1', 'packet-count': '20' });

    // The probe's test: 20 echoes climbing 600 → 695 ms.
    sim.setWanLink(RAMP);
    await sim.lan.probeAll();
    expect(probe()).to.include({ 'rtt-min': '600ms0us', 'rtt-max': '695ms0us', 'rtt-jitter': '95ms0us' });

    // The agent's /ping meanwhile sees 600, 610, 600, 610, 600.
    sim.setWanLink(SEESAW);
    expect(await measure(router, '7.19')).to.deep.equal({
      rtt_ms: 647.5,
      jitter_ms: 10,
      packet_loss_pct: 0,
      source: 'netwatch',
    });
  });

  it('6.49: /ping alone, jitter the mean gap of its round trips; no netwatch entry is made', async () => {
    const { sim, router } = await start('6.49.10');
    sim.setWanLink(SEESAW);
    expect(await measure(router, '6.49.10')).to.deep.equal({
      rtt_ms: 604,
      jitter_ms: 10,
      packet_loss_pct: 0,
      source: 'ping',
    });
    expect(
      sim.state
        .table('/tool/netwatch')
        .list()
        .filter((r) => r.props.comment?.startsWith(QOE_NETWATCH_MARK)),
    ).to.deep.equal([]);
  });
});
