// RADIUS relay per router: two sites, each a RouterOS simulator with the real agent runtime, one
// agent as in a RouterOS container (relay on every address: the router sees it at the address the
// agent reaches the router from) and one as a LAN box whose relay listens on its own LAN address.
// Each agent reports its relay; each enrolment writes the router's /radius entry with its own
// agent's address and ports, and a hotspot login on each router goes through its own relay.
import { expect } from 'chai';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLiveStack, type LiveStack } from '../../support/live-site.js';

forEachDatabase('RADIUS relay per router (container agent, LAN-box agent)', (database) => {
  let stack: LiveStack;
  beforeEach(async () => {
    // The controller-wide address is only the fallback: no router here may end up with it.
    stack = await startLiveStack(database, { config: { radiusRelayAddress: '192.0.2.1' } });
  });
  afterEach(async () => stack.close());

  /** A simulated router and a real agent whose relay listens on `relayHost`, enrolled and reporting. */
  const site = (serial: string, relayHost: string) =>
    stack.addSite({
      serial,
      identity: `Site-${serial}`,
      relay: { host: relayHost, authPort: 0, acctPort: 0 },
      ready: (a) => a.radius_relay !== null,
    });

  const radiusEntry = (sim: RouterSim) => sim.state.table('/radius').list()[0]?.props;

  it("writes each router's /radius entry with its own agent's relay address and ports", async function () {
    this.timeout(60_000);
    const container = await site('48A98A07C001', '0.0.0.0');
    const lanBox = await site('48A98A07C002', '127.0.0.2');
    const { profiles, tickets } = stack.t.controller.services;
    await profiles.setProfile(stack.client.id, '1H', { time_limit_seconds: 3600 });

    for (const [serial, { sim, agent }, address] of [
      ['48A98A07C001', container, '127.0.0.1'],
      ['48A98A07C002', lanBox, '127.0.0.2'],
    ] as const) {
      const res = await stack.radius('POST', '/nas', { router_serial: serial });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const { auth, acct } = agent.radiusRelay!.addresses;
      expect(radiusEntry(sim), serial).to.include({
        address,
        'authentication-port': String(auth!.port),
        'accounting-port': String(acct!.port),
      });
      const verify = await stack.radius('POST', `/nas/${res.body.nas.id}/verify`);
      expect(verify.body.verified, JSON.stringify(verify.body)).to.equal(true);

      // A login on this router is decided by the controller through this router's own relay.
      const [ticket] = await tickets.createTickets(stack.client.id, { profileId: '1H', quantity: 1 });
      const relayed = agent.radiusRelay!.stats.relayed;
      const login = await sim.hotspotLogin({ user: ticket!.code, password: ticket!.code, ip: '10.5.50.11' });
      expect(login.ok, JSON.stringify(login)).to.equal(true);
      expect(agent.radiusRelay!.stats.relayed).to.be.greaterThan(relayed);
    }
    // Neither router was pointed at the controller-wide fallback.
    expect(radiusEntry(container.sim)!.address).to.not.equal(radiusEntry(lanBox.sim)!.address);
  });
});
