// The agent's RADIUS relay against a FakeHub: the router's datagram goes out as a signed `radius`
// frame, the controller's answer comes back to the same source; nothing is relayed while the link
// is down, unanswered requests are forgotten, CoA goes the other way. Real UDP on loopback.
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { expect } from 'chai';
import sinon from 'sinon';
import { radiusRelaySettings } from '../../../agent/config.js';
import type { MessageBody } from '../../../protocol/index.js';
import { FakeHub, type HubConnection } from '../../support/fake-hub.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { afterTest, cleanUp, SIM_PASSWORD, startTestAgent, waitUntil } from '../agent/agent-harness.js';

type Frame = MessageBody<'radius'>;

/** Runs `send` and resolves once the relay has handled the `radius` frame it sent (synchronously). */
async function answerReceived(relay: { receive(frame: Frame): void }, send: () => void): Promise<void> {
  const received = sinon.spy(relay, 'receive');
  try {
    send();
    await waitUntil(() => received.called, 5000, 'the relay to receive the answer');
  } finally {
    received.restore();
  }
}

/** A UDP socket standing for the router (or its /radius incoming listener). */
async function udpPeer(address = '127.0.0.1'): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
  const socket = createSocket('udp4');
  const received: Buffer[] = [];
  socket.on('message', (msg) => received.push(msg));
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  afterTest(async () => socket.close());
  return { socket, port: socket.address().port, received };
}

/** Bytes shaped like a RADIUS packet (the relay never parses them). */
const packet = (code = 1): Buffer => {
  const bytes = randomBytes(40);
  bytes[0] = code;
  bytes.writeUInt16BE(40, 2);
  return bytes;
};

const radiusFrames = (conn: HubConnection): Frame[] =>
  conn.received.filter((f) => f.type === 'radius').map((f) => f.body as Frame);

async function setUp(relay: { timeoutMs?: number; allow?: string; coaPort?: number; sim?: RouterSim } = {}) {
  const hub = await new FakeHub().start();
  afterTest(() => hub.stop());
  const agent = await startTestAgent({
    hub,
    sim: relay.sim,
    enrol: true,
    radiusRelay: {
      ...radiusRelaySettings(
        {
          radiusRelayHost: '127.0.0.1',
          radiusRelayAuthPort: '0',
          radiusRelayAcctPort: '0',
          radiusRelayAllow: relay.allow,
        },
        {},
      )!,
      ...(relay.timeoutMs !== undefined ? { timeoutMs: relay.timeoutMs } : {}),
      ...(relay.coaPort !== undefined ? { coaPort: relay.coaPort } : {}),
    },
  });
  await hub.waitFor(() => hub.liveConnections.length === 1, 5000, 'agent connected');
  // The hub has sent welcome; the agent relays once it has read it.
  await waitUntil(() => agent.link.session !== undefined, 5000, 'link ready');
  const ports = agent.radiusRelay!.addresses;
  return {
    hub,
    agent,
    relay: agent.radiusRelay!,
    conn: hub.liveConnections[0]!,
    auth: ports.auth!.port,
    acct: ports.acct!.port,
  };
}

describe('agent RADIUS relay', function () {
  this.timeout(15_000);
  afterEach(cleanUp);

  it('relays a datagram as a radius frame and sends the answer back to the same source', async () => {
    const { conn, auth, acct, relay } = await setUp();
    const router = await udpPeer();
    const request = packet(1);
    router.socket.send(request, auth, '127.0.0.1');
    await waitUntil(() => radiusFrames(conn).length === 1, 5000, 'radius frame');
    const [frame] = radiusFrames(conn);
    expect(frame!.peer).to.equal(`auth:127.0.0.1:${router.port}`);
    expect(Buffer.from(frame!.packet, 'base64').equals(request)).to.equal(true);
    expect(relay.pendingCount).to.equal(1);

    const answer = packet(2);
    conn.send('radius', { id: frame!.id, packet: answer.toString('base64') });
    await waitUntil(() => router.received.length === 1, 5000, 'UDP answer');
    expect(router.received[0]!.equals(answer)).to.equal(true);
    expect(relay.pendingCount).to.equal(0);

    // Accounting goes through its own port and says so.
    router.socket.send(packet(4), acct, '127.0.0.1');
    await waitUntil(() => radiusFrames(conn).length === 2, 5000, 'accounting frame');
    expect(radiusFrames(conn)[1]!.peer).to.equal(`acct:127.0.0.1:${router.port}`);
    // An answer for an id that is not pending (or a second one) goes nowhere.
    await answerReceived(relay, () =>
      conn.send('radius', { id: frame!.id, packet: answer.toString('base64') }),
    );
    // An answer forwarded to the router would have been counted in the same call.
    expect(relay.stats).to.deep.include({ relayed: 2, answered: 1 });
    expect(router.received).to.have.length(1);
  });

  it('drops datagrams while the link is down', async () => {
    const { hub, auth, relay, agent } = await setUp();
    await hub.stop();
    await waitUntil(() => agent.link.session === undefined, 5000, 'link down');
    const router = await udpPeer();
    router.socket.send(packet(1), auth, '127.0.0.1');
    await waitUntil(() => relay.stats.dropped.linkDown === 1, 5000, 'drop counted');
    expect(relay.pendingCount).to.equal(0);
    expect(relay.stats.relayed).to.equal(0);
  });

  it('forgets a request the controller does not answer in time', async () => {
    const { conn, auth, relay } = await setUp({ timeoutMs: 200 });
    const router = await udpPeer();
    router.socket.send(packet(1), auth, '127.0.0.1');
    await waitUntil(() => relay.pendingCount === 1, 5000, 'pending');
    await waitUntil(() => relay.pendingCount === 0, 2000, 'timed out');
    expect(relay.stats.dropped.timedOut).to.equal(1);
    // The late answer is ignored.
    const [frame] = radiusFrames(conn);
    await answerReceived(relay, () =>
      conn.send('radius', { id: frame!.id, packet: packet(2).toString('base64') }),
    );
    expect(relay.stats.answered).to.equal(0);
    expect(router.received).to.deep.equal([]);
  });

  it('relays only sources on the allow-list', async () => {
    const { conn, auth, relay } = await setUp({ allow: '10.0.0.0/8, 192.168.88.1' });
    const router = await udpPeer();
    router.socket.send(packet(1), auth, '127.0.0.1');
    await waitUntil(() => relay.stats.dropped.notAllowed === 1, 5000, 'refused');
    expect(radiusFrames(conn)).to.deep.equal([]);
  });

  it("takes RADIUS by default only from the router's own addresses: its API host and its /ip address", async () => {
    const sim = new RouterSim({ serial: 'AB12CD34EF56', version: '7.19', password: SIM_PASSWORD });
    await sim.start();
    afterTest(() => sim.stop());
    sim.state.table('/ip/address').insert({
      address: '127.0.0.4/8',
      network: '127.0.0.0',
      interface: 'bridge',
      disabled: 'false',
    });
    const { conn, auth, relay } = await setUp({ sim });
    await waitUntil(
      () => relay.routerAddresses.some((b) => b.text === '127.0.0.4'),
      5000,
      "the router's addresses read",
    );
    // Another host of the LAN (not the router) knocks: dropped, nothing reaches the controller.
    const stranger = await udpPeer('127.0.0.3');
    stranger.socket.send(packet(1), auth, '127.0.0.1');
    await waitUntil(() => relay.stats.dropped.notAllowed === 1, 5000, 'stranger refused');
    expect(radiusFrames(conn)).to.deep.equal([]);
    // The router, from the address the agent reaches it at and from another of its addresses.
    for (const address of ['127.0.0.1', '127.0.0.4'])
      (await udpPeer(address)).socket.send(packet(1), auth, '127.0.0.1');
    await waitUntil(() => radiusFrames(conn).length === 2, 5000, 'router packets relayed');
    expect(
      radiusFrames(conn)
        .map((f) => f.peer!.split(':')[1])
        .sort(),
    ).to.deep.equal(['127.0.0.1', '127.0.0.4']);
    expect(relay.stats.dropped.notAllowed).to.equal(1);
  });

  it('reports where the router must send RADIUS: its bound address, or the one it reaches the router from', async () => {
    const bound = await setUp();
    expect(bound.relay.report()).to.deep.equal({
      address: '127.0.0.1',
      auth_port: bound.auth,
      acct_port: bound.acct,
    });
    await cleanUp();
    const hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    const wildcard = await startTestAgent({
      hub,
      enrol: true,
      radiusRelay: radiusRelaySettings(
        { radiusRelayHost: '0.0.0.0', radiusRelayAuthPort: '0', radiusRelayAcctPort: 'off' },
        {},
      )!,
    });
    expect(wildcard.radiusRelay!.report()).to.deep.equal({
      address: '127.0.0.1',
      auth_port: wildcard.radiusRelay!.addresses.auth!.port,
      acct_port: null,
    });
  });

  it("forwards a controller CoA request to the router's /radius incoming and relays the answer", async () => {
    const incoming = await udpPeer();
    // The router's /radius incoming: answers each request with a CoA-ACK of the same identifier.
    incoming.socket.on('message', (msg, rinfo) => {
      const ack = packet(44);
      ack[1] = msg[1]!;
      incoming.socket.send(ack, rinfo.port, rinfo.address);
    });
    const { conn } = await setUp({ coaPort: incoming.port });
    const request = packet(43);
    conn.send('radius', { id: 'coa-1', packet: request.toString('base64'), peer: 'coa' });
    await waitUntil(() => radiusFrames(conn).some((f) => f.id === 'coa-1'), 5000, 'CoA answer frame');
    expect(incoming.received[0]!.equals(request)).to.equal(true);
    const answer = Buffer.from(radiusFrames(conn).find((f) => f.id === 'coa-1')!.packet, 'base64');
    expect(answer[0]).to.equal(44);
    expect(answer[1]).to.equal(request[1]);
    expect(radiusFrames(conn).find((f) => f.id === 'coa-1')!.peer).to.equal('coa');
  });

  it('reads its settings from flags and environment, `off` included', () => {
    expect(radiusRelaySettings({}, {})).to.deep.include({ host: '0.0.0.0', authPort: 1812, acctPort: 1813 });
    expect(
      radiusRelaySettings(
        {},
        { TICKETNET_RADIUS_RELAY_AUTH_PORT: 'off', TICKETNET_RADIUS_RELAY_ACCT_PORT: '11813' },
      ),
    ).to.deep.include({ authPort: null, acctPort: 11813 });
    expect(radiusRelaySettings({ radiusRelayAuthPort: 'off', radiusRelayAcctPort: 'off' }, {})).to.equal(
      undefined,
    );
    expect(() => radiusRelaySettings({ radiusRelayAllow: '10.0.0.0/33' }, {})).to.throw(/allow-list/);
    expect(() => radiusRelaySettings({ radiusRelayHost: 'router.lan' }, {})).to.throw(/IPv4/);
    expect(radiusRelaySettings({}, { TICKETNET_RADIUS_RELAY_ADVERTISE: '172.17.0.2' })).to.deep.include({
      advertise: '172.17.0.2',
      allow: [],
    });
    expect(() => radiusRelaySettings({ radiusRelayAdvertise: 'agent.lan' }, {})).to.throw(/IPv4/);
  });
});
