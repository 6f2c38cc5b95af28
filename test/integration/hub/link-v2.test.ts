// Protocol version 2 at the hub: the version is settled in the handshake, an agent's ack and result
// may travel in one signed batch (one write records both), commands that go out together travel as
// one batch, and a frame of another version than the session's is refused.
import { expect } from 'chai';
import sinon from 'sinon';
import { WebSocket, type RawData } from 'ws';
import {
  encodeEnvelope,
  messagesOf,
  negotiateVersion,
  openEnvelope,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
  type AnyEnvelope,
  type MessageBody,
  type MessageOf,
  type MessageType,
} from '../../../protocol/index.js';
import { forEachDatabase } from '../../support/databases.js';
import type { FakeAgent } from '../../support/fake-agent.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';

/** An enrolled agent's connection speaking version 2 by hand. */
class V2Link {
  sid = '';
  version = 0;
  offered: number[] | undefined;
  readonly frames: AnyEnvelope[] = [];
  readonly messages: MessageOf[] = [];
  error: { code: string } | undefined;
  readonly out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  readonly closed: Promise<number>;
  readonly #ws: WebSocket;

  constructor(
    url: string,
    private readonly agent: FakeAgent,
  ) {
    this.#ws = new WebSocket(url, { perMessageDeflate: false });
    this.#ws.on('error', () => undefined);
    this.#ws.on('message', (raw) => this.#receive(raw));
    this.closed = new Promise((resolve) => this.#ws.once('close', (code) => resolve(code)));
  }

  #receive(raw: RawData): void {
    const key = this.agent.controllerKey!;
    if (this.sid === '') {
      const challenge = openEnvelope(raw, { publicKey: key, expect: ['challenge'], from: 'controller' });
      this.#in.accept(challenge.seq);
      this.sid = challenge.sid;
      this.offered = challenge.body.versions;
      this.version = negotiateVersion(challenge.body.versions, 2);
      this.send('hello', { agent_id: this.agent.agentId!, agent_version: '0.2.0', capabilities: [] });
      return;
    }
    const envelope = openEnvelope(raw, {
      publicKey: key,
      sid: this.sid,
      from: 'controller',
      version: this.version,
    });
    this.#in.accept(envelope.seq);
    this.frames.push(envelope);
    for (const m of messagesOf(envelope)) {
      this.messages.push(m);
      if (m.type === 'error') this.error = m.body;
    }
  }

  send<T extends MessageType>(type: T, body: MessageBody<T>, v = this.version): void {
    const env = signEnvelope(type, body as never, {
      sid: this.sid,
      seq: this.out.next(),
      secretKey: this.agent.keys.secretKey,
      v,
    });
    this.#ws.send(encodeEnvelope(env));
  }

  welcomed(): Promise<unknown> {
    return eventually(
      async () => this.messages.find((m) => m.type === 'welcome'),
      (w) => w !== undefined,
    );
  }

  commands(): MessageBody<'command'>[] {
    return this.messages.filter((m) => m.type === 'command').map((m) => m.body as MessageBody<'command'>);
  }

  close(): void {
    this.#ws.close();
  }
}

forEachDatabase('agent link, protocol version 2', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  const read = async (allocationId: string, id: string) => {
    const res = await h.t.request('GET', `/api/v1/clients/allocations/${allocationId}/commands/${id}`, {
      token: h.client.token,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.data;
  };

  async function v2Agent(): Promise<{ agent: FakeAgent; link: V2Link }> {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const link = new V2Link(h.agentUrl, agent);
    await link.welcomed();
    return { agent, link };
  }

  it('offers versions 1 to 3 in the challenge and answers a version 2 hello in version 2', async () => {
    const { link } = await v2Agent();
    expect(link.offered).to.deep.equal([1, 2, 3]);
    expect(link.version).to.equal(2);
    expect(link.frames[0]).to.include({ type: 'welcome', v: 2 });
  });

  it('records an ack and its result sent in one batch with one write: DONE, acked and sent', async () => {
    const { agent, link } = await v2Agent();
    const { commands } = h.t.controller.services;
    const queued = await commands.enqueue(h.client.id, agent.allocationId!, 'router.ping', {});
    // Linked here: stored and recorded as sent in one commit.
    expect(queued).to.include({ state: 'SENT', attempts: 1 });
    const [command] = await eventually(
      async () => link.commands(),
      (c) => c.length === 1,
    );
    expect(command!.id).to.equal(queued.id);
    link.send('batch', {
      messages: [
        { type: 'ack', body: { id: queued.id } },
        { type: 'result', body: { id: queued.id, status: 'DONE', output: { rtt_ms: 3 } } },
      ],
    });
    const done = await commands.waitForResult(h.client.id, queued.id, 5000);
    expect(done).to.include({ state: 'DONE', attempts: 1 });
    expect(done.output).to.deep.equal({ rtt_ms: 3 });
    expect(done.sent_at).to.be.a('string');
    expect(done.acked_at).to.equal(done.finished_at);
    expect(await read(agent.allocationId!, queued.id)).to.deep.equal(JSON.parse(JSON.stringify(done)));
  });

  it('a command queued while a fresh link reads its open commands goes out once, recorded as sent once', async () => {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const { commands } = h.t.controller.services;
    // the fresh link's read of its open commands waits until the command below is queued
    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const openFor = commands.openFor.bind(commands);
    let openRead: Promise<unknown> | undefined;
    const stub = sinon.stub(commands, 'openFor').callsFake((allocationId: string) => {
      reading();
      const rows = gate.then(() => openFor(allocationId));
      openRead = rows;
      return rows;
    });
    try {
      const link = new V2Link(h.agentUrl, agent);
      await link.welcomed();
      await started;
      const queued = await commands.enqueue(h.client.id, agent.allocationId!, 'router.ping', {});
      expect(queued).to.include({ state: 'SENT', attempts: 1 });
      release();
      // the read now sees the command, already recorded as sent on this link
      await openRead;
      await eventually(
        async () => link.commands(),
        (c) => c.length === 1,
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(link.commands().map((c) => c.id)).to.deep.equal([queued.id]);
      expect(await read(agent.allocationId!, queued.id)).to.include({ state: 'SENT', attempts: 1 });
    } finally {
      stub.restore();
    }
  });

  it('records the reports of one batch together and acknowledges them in one report_ack', async () => {
    const { agent, link } = await v2Agent();
    const report = (n: number) => ({
      id: crypto.randomUUID(),
      kind: 'event' as const,
      at: `2026-11-21T08:0${n}:00.000Z`,
      data: { n },
    });
    const reports = [report(1), report(2), report(3)];
    // The third twice (a resend in the same backlog): stored once, acknowledged with the others.
    link.send('batch', {
      messages: [...reports, reports[2]!].map((body) => ({ type: 'report', body })),
    });
    await eventually(
      async () => link.frames.filter((f) => f.type === 'report_ack'),
      (acks) => acks.length > 0,
    );
    link.send('ping', { t: 1 });
    await eventually(
      async () => link.frames.filter((f) => f.type === 'pong'),
      (pongs) => pongs.length > 0,
    );
    const acks = link.frames.filter((f) => f.type === 'report_ack').map((f) => f.body);
    expect(acks).to.deep.equal([{ ids: [...reports, reports[2]!].map((r) => r.id) }]);
    const stored = await h.t.db.db
      .selectFrom('agent_reports')
      .select(['id', 'allocation_id'])
      .where('allocation_id', '=', agent.allocationId!)
      .where('kind', '=', 'event')
      .orderBy('at')
      .execute();
    expect(stored.map((r) => r.id)).to.deep.equal(reports.map((r) => r.id));
  });

  it('keeps an ack that came alone before its result', async () => {
    const { agent, link } = await v2Agent();
    const { commands } = h.t.controller.services;
    const queued = await commands.enqueue(h.client.id, agent.allocationId!, 'router.ping', {});
    await eventually(
      async () => link.commands(),
      (c) => c.length === 1,
    );
    link.send('ack', { id: queued.id });
    const acked = await eventually(
      () => read(agent.allocationId!, queued.id),
      (c) => c.state === 'ACKED',
    );
    h.t.clock.advance(1000);
    link.send('result', { id: queued.id, status: 'DONE', output: { rtt_ms: 1 } });
    const done = await commands.waitForResult(h.client.id, queued.id, 5000);
    expect(done.state).to.equal('DONE');
    expect(done.acked_at).to.equal(acked.acked_at);
    expect(done.finished_at).to.not.equal(acked.acked_at);
  });

  it('sends the commands queued while the agent was away as one batch, in order', async () => {
    const agent = await h.enrolledAgent();
    await h.goOffline(agent);
    const { commands } = h.t.controller.services;
    const ids: string[] = [];
    for (const name of ['router.facts', 'router.ping', 'router.ping']) {
      ids.push((await commands.enqueue(h.client.id, agent.allocationId!, name, {})).id);
      h.t.clock.advance(1);
    }
    const link = new V2Link(h.agentUrl, agent);
    await link.welcomed();
    await eventually(
      async () => link.commands(),
      (c) => c.length === 3,
    );
    expect(link.commands().map((c) => c.id)).to.deep.equal(ids);
    const batch = link.frames.find((f) => f.type === 'batch');
    expect(batch, 'one batch frame').to.not.equal(undefined);
    expect(messagesOf(batch!)).to.have.length(3);
  });

  it('refuses a frame of version 1 in a version 2 session', async () => {
    const { link } = await v2Agent();
    link.send('ping', { t: 1 }, 1);
    expect(await link.closed).to.equal(1008);
    expect(link.error).to.deep.include({ code: 'UNSUPPORTED_VERSION' });
  });

  it('refuses an agent batch carrying a controller message', async () => {
    const { link } = await v2Agent();
    link.send('batch', { messages: [{ type: 'report_ack', body: { ids: [crypto.randomUUID()] } }] });
    expect(await link.closed).to.equal(1008);
    expect(link.error).to.deep.include({ code: 'UNEXPECTED_MESSAGE' });
  });
});
