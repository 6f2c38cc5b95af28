// What an unauthenticated socket on /agent/v1 may cost the controller: one small frame at a time,
// a handshake deadline, and a bounded number of such sockets per address and in total.
import { expect } from 'chai';
import WebSocket from 'ws';
import { forEachDatabase } from '../../support/databases.js';
import { FakeAgent } from '../../support/fake-agent.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';

const MiB = 1024 * 1024;

/** Opens a socket and waits for the challenge; the test then misbehaves on it. */
async function rawSocket(url: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('message', () => resolve());
    ws.once('close', () => reject(new Error('closed before the challenge')));
  });
  return { ws, closed };
}

/** The refusal of an upgrade: the HTTP status the hub answered instead of 101. */
function upgradeStatus(agent: FakeAgent, headers: Record<string, string>): Promise<string> {
  return agent.dial(headers).then(
    () => 'accepted',
    (err: Error) => /\d{3}/.exec(err.message)?.[0] ?? err.message,
  );
}

forEachDatabase('agent link before authentication', (database) => {
  let h: HubTest;
  afterEach(async () => h.t.close());

  it('closes with 1009 a socket that announces a frame over the limit, before its payload arrives', async () => {
    h = await startHub(database, {}, { handshakeTimeoutMs: 5_000 });
    const { ws, closed } = await rawSocket(h.agentUrl);
    // A masked text frame header declaring 64 MiB, and none of the payload: the limit must act on
    // the header, not after buffering the frame (else this waits for the handshake timeout).
    const header = Buffer.alloc(14);
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(64 * MiB), 2);
    header.writeUInt32BE(0x01020304, 10);
    (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(header);
    const started = performance.now();
    expect(await closed).to.equal(1009);
    expect(performance.now() - started).to.be.below(2_000);

    // A whole oversized frame is refused the same way, and the controller keeps serving.
    const second = await rawSocket(h.agentUrl);
    second.ws.send(Buffer.alloc(MiB, 0x20));
    expect(await second.closed).to.equal(1009);
    const agent = await h.enrolledAgent();
    agent.link!.send('ping', { t: 1 });
    await agent.link!.waitFor('pong');
    expect((await h.t.request('GET', '/healthz')).status).to.equal(200);
    await eventually(
      async () => h.t.controller.services.hub.handshakingCount,
      (n) => n === 0,
    );
  });

  it('lets an authenticated agent send a result far over the pre-authentication limit', async () => {
    h = await startHub(database);
    const agent = await h.enrolledAgent();
    const names = Array.from({ length: 40_000 }, (_, i) => `voucher-${String(i).padStart(8, '0')}`);
    agent.execute = () => ({ status: 'DONE', output: { names, count: names.length } });
    const res = await h.t.request('POST', `/api/v1/clients/allocations/${agent.allocationId}/commands`, {
      token: h.client.token,
      body: { name: 'hotspot.users.names' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const done = await eventually(
      async () =>
        (
          await h.t.request(
            'GET',
            `/api/v1/clients/allocations/${agent.allocationId}/commands/${res.body.data.id}`,
            {
              token: h.client.token,
            },
          )
        ).body.data,
      (c) => c.state !== 'SENT' && c.state !== 'ACKED' && c.state !== 'QUEUED',
    );
    expect(done.state, JSON.stringify(done.fault)).to.equal('DONE');
    expect(done.output.count).to.equal(40_000);
    expect(JSON.stringify(done.output).length).to.be.above(MiB / 2);
  });

  it('caps the sockets still in their handshake per address (429) and in total (503)', async () => {
    h = await startHub(
      database,
      { trustProxy: true },
      { maxHandshakesPerAddress: 2, maxHandshakes: 3, handshakeTimeoutMs: 5_000 },
    );
    const from = (address: string) => ({ 'x-forwarded-for': address });
    // An authenticated agent holds no handshake slot.
    const enrolled = await h.enrolledAgent();
    const a1 = await new FakeAgent(h.agentUrl).dial(from('10.0.0.1'));
    await new FakeAgent(h.agentUrl).dial(from('10.0.0.1'));
    expect(await upgradeStatus(new FakeAgent(h.agentUrl), from('10.0.0.1'))).to.equal('429');
    expect(await upgradeStatus(new FakeAgent(h.agentUrl), from('10.0.0.2'))).to.equal('accepted');
    expect(await upgradeStatus(new FakeAgent(h.agentUrl), from('10.0.0.3'))).to.equal('503');
    expect(h.t.controller.services.hub.handshakingCount).to.equal(3);

    // A slot comes back when its socket goes.
    await a1.close();
    await eventually(
      async () => h.t.controller.services.hub.handshakingCount,
      (n) => n === 2,
    );
    expect(await upgradeStatus(new FakeAgent(h.agentUrl), from('10.0.0.1'))).to.equal('accepted');
    // The enrolled agent's link was never affected.
    enrolled.link!.send('ping', { t: 1 });
    await enrolled.link!.waitFor('pong');
  });
});
