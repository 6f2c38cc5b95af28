// Protocol version 3 at the hub: the signed hello and welcome carry each end's ephemeral key, every
// later frame is sealed with the session key of its direction (a MAC checked before the frame is
// read), bulk payloads travel compressed both ways, and version 2 agents keep working beside it.
import { expect } from 'chai';
import { WebSocket, type RawData } from 'ws';
import { openLink, type LinkCredentials } from '../../../agent/link/open-link.js';
import type { ControllerMessage, LinkSession } from '../../../agent/link/link-session.js';
import {
  deriveSessionKeys,
  encodeEnvelope,
  generateEphemeralKeyPair,
  generateKeyPair,
  MAC_POLY1305_FEATURE,
  messagesOf,
  normaliseEnrolCode,
  openEnvelope,
  openFrame,
  sealFrame,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
  type AnyEnvelope,
  type EphemeralKeyPair,
  type KeyPair,
  type MessageBody,
  type MessageOf,
  type MessageType,
  type SessionKeys,
} from '../../../protocol/index.js';
import { forEachDatabase } from '../../support/databases.js';
import { sampleOutput, type FakeAgent } from '../../support/fake-agent.js';
import { eventually, startHub, type HubTest, hotspotUsers as users } from './hub-fixture.js';

const MAX = 64 * 1024 * 1024;

/** What to do to the hello: leave its session key out, or change the signed frame on its way. */
interface HelloForgery {
  withoutKey?: boolean;
  onPath?: (hello: AnyEnvelope) => AnyEnvelope;
  /** What the hello names (default nothing): a link feature such as `mac.poly1305`. */
  capabilities?: string[];
}

/** An enrolled agent's version 3 connection by hand, to send what a real agent never would. */
class V3Link {
  sid = '';
  version = 0;
  keys: SessionKeys | undefined;
  /** The ephemeral key pair announced in the hello. */
  readonly ephemeral: EphemeralKeyPair = generateEphemeralKeyPair();
  readonly welcome: AnyEnvelope[] = [];
  readonly messages: MessageOf[] = [];
  /** Flags byte of every sealed frame received (bit 0: compressed). */
  readonly flags: number[] = [];
  /** Length of every sealed frame received. */
  readonly lengths: number[] = [];
  /** Every frame sent, as sent (to replay one). */
  readonly sent: Buffer[] = [];
  error: { code: string } | undefined;
  readonly out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  readonly closed: Promise<number>;
  readonly #ws: WebSocket;

  constructor(
    url: string,
    readonly agent: FakeAgent,
    private readonly forge: HelloForgery = {},
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
      this.version = 3;
      const env = signEnvelope(
        'hello',
        {
          agent_id: this.agent.agentId!,
          agent_version: '0.3.0',
          capabilities: this.forge.capabilities ?? [],
          ...(this.forge.withoutKey ? {} : { session_key: this.ephemeral.publicKey }),
        },
        { sid: this.sid, seq: this.out.next(), secretKey: this.agent.keys.secretKey, v: 3 },
      );
      this.#ws.send(encodeEnvelope(this.forge.onPath ? this.forge.onPath(env) : env));
      return;
    }
    if (this.keys === undefined) {
      const reply = openEnvelope(raw, { publicKey: key, sid: this.sid, from: 'controller', version: 3 });
      this.#in.accept(reply.seq);
      this.welcome.push(reply);
      if (reply.type === 'error') this.error = reply.body;
      if (reply.type === 'welcome') {
        this.keys = deriveSessionKeys({
          role: 'agent',
          sid: this.sid,
          own: this.ephemeral,
          peerPublicKey: reply.body.session_key!,
          agentKey: this.agent.keys.publicKey,
          controllerKey: key,
          poly1305:
            (this.forge.capabilities ?? []).includes(MAC_POLY1305_FEATURE) &&
            (reply.body.features ?? []).includes(MAC_POLY1305_FEATURE),
        });
      }
      return;
    }
    const envelope = openFrame(raw, { keys: this.keys, from: 'controller', maxBytes: MAX });
    this.#in.accept(envelope.seq);
    this.flags.push((raw as Buffer)[1]!);
    this.lengths.push((raw as Buffer).length);
    for (const m of messagesOf(envelope)) {
      this.messages.push(m);
      if (m.type === 'error') this.error = m.body;
    }
  }

  /** Seals and sends a message (with other keys or another sequence number to forge one). */
  send<T extends MessageType>(
    type: T,
    body: MessageBody<T>,
    options: { keys?: SessionKeys; seq?: number } = {},
  ): Buffer {
    const frame = sealFrame(type, body as never, {
      keys: options.keys ?? this.keys!,
      seq: options.seq ?? this.out.next(),
    });
    this.sendRaw(frame);
    return frame;
  }

  sendRaw(frame: Buffer): void {
    this.sent.push(frame);
    this.#ws.send(frame);
  }

  welcomed(): Promise<unknown> {
    return eventually(
      async () => this.keys,
      (k) => k !== undefined,
    );
  }

  commands(): MessageBody<'command'>[] {
    return this.messages.filter((m) => m.type === 'command').map((m) => m.body as MessageBody<'command'>);
  }

  close(): void {
    this.#ws.close();
  }
}

/** A real agent link (the agent's own code) answering every command and collecting report acks. */
async function realAgent(
  url: string,
  credentials: LinkCredentials,
  maxVersion?: number,
): Promise<{ session: LinkSession }> {
  const { session } = await openLink({
    url,
    credentials,
    agentVersion: '0.3.0',
    capabilities: [],
    ...(maxVersion !== undefined ? { maxVersion } : {}),
  });
  session.listen((message: ControllerMessage) => {
    if (message.type === 'command') {
      void session.send('ack', { id: message.body.id });
      void session.send('result', {
        id: message.body.id,
        status: 'DONE',
        output: sampleOutput(message.body.name),
      } as MessageBody<'result'>);
    }
  });
  return { session };
}

forEachDatabase('agent link, protocol version 3', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  async function v3Agent(forge?: HelloForgery) {
    const agent = await h.enrolledAgent();
    await agent.link!.close();
    const link = new V3Link(h.agentUrl, agent, forge);
    return { agent, link };
  }

  it('serves a version 2 agent and a version 3 agent side by side, before and after a reconnect', async () => {
    const { commands } = h.t.controller.services;
    const enrolled: Array<{ allocationId: string; credentials: LinkCredentials }> = [];
    const sessions: LinkSession[] = [];
    for (const maxVersion of [2, 3]) {
      const { allocation, enrolment } = await h.allocate();
      const keyPair: KeyPair = generateKeyPair();
      const { session } = await realAgent(
        h.agentUrl,
        { kind: 'enrol', code: normaliseEnrolCode(enrolment.code), keyPair },
        maxVersion,
      );
      expect(session.version).to.equal(maxVersion);
      sessions.push(session);
      enrolled.push({
        allocationId: allocation.id,
        credentials: {
          kind: 'hello',
          identity: {
            version: 1,
            agent_id: session.welcome.agent_id,
            allocation_id: allocation.id,
            controller_url: h.agentUrl,
            controller_key: session.welcome.controller_key,
            agent_public_key: keyPair.publicKey,
            agent_secret_key: keyPair.secretKey,
            enrolled_at: new Date().toISOString(),
          },
        },
      });
    }
    for (const round of ['first connection', 'after a reconnect']) {
      if (round !== 'first connection') {
        for (const s of sessions.splice(0)) {
          s.close();
          await s.ended;
        }
      }
      const links = [];
      for (const [i, { allocationId, credentials }] of enrolled.entries()) {
        const link =
          round === 'first connection' ? undefined : await realAgent(h.agentUrl, credentials, i + 2);
        if (link) {
          expect(link.session.version, round).to.equal(i + 2);
          sessions.push(link.session);
        }
        links.push({ allocationId, link });
      }
      // Controller → agent: a command each; agent → controller: its result, and a report.
      const queued = await Promise.all(
        links.map(({ allocationId }) => commands.enqueue(h.client.id, allocationId, 'router.ping', {})),
      );
      const done = await Promise.all(queued.map((c) => commands.waitForResult(h.client.id, c.id, 5000)));
      expect(
        done.map((c) => c.state),
        round,
      ).to.deep.equal(['DONE', 'DONE']);
      expect(done.map((c) => c.output)).to.deep.equal([{ rtt_ms: 2 }, { rtt_ms: 2 }]);
    }
    for (const session of sessions) {
      const id = crypto.randomUUID();
      const acks: string[] = [];
      session.listen((m) => {
        if (m.type === 'report_ack') acks.push(...m.body.ids);
      });
      await session.send('report', { id, kind: 'event', at: new Date().toISOString(), data: { n: 1 } });
      await eventually(
        async () => acks,
        (a) => a.includes(id),
      );
      session.close();
    }
  });

  it('welcomes a version 3 hello in version 3 with its own session key, then speaks in sealed frames', async () => {
    const { agent, link } = await v3Agent();
    await link.welcomed();
    const [welcome] = link.welcome;
    expect(welcome).to.include({ type: 'welcome', v: 3 });
    expect((welcome!.body as MessageBody<'welcome'>).session_key).to.be.a('string');
    const { commands } = h.t.controller.services;
    const queued = await commands.enqueue(h.client.id, agent.allocationId!, 'router.ping', {});
    await eventually(
      async () => link.commands(),
      (c) => c.length === 1,
    );
    link.send('batch', {
      messages: [
        { type: 'ack', body: { id: queued.id } },
        { type: 'result', body: { id: queued.id, status: 'DONE', output: { rtt_ms: 4 } } },
      ],
    });
    const done = await commands.waitForResult(h.client.id, queued.id, 5000);
    expect(done).to.include({ state: 'DONE' });
    expect(done.output).to.deep.equal({ rtt_ms: 4 });
  });

  it('compresses bulk payloads both ways inside the authenticated frame', async () => {
    const { agent, link } = await v3Agent();
    await link.welcomed();
    const { commands } = h.t.controller.services;
    // Controller → agent: a restore batch of 40 users.
    const restore = await commands.enqueue(h.client.id, agent.allocationId!, 'hotspot.users.restore', {
      users: users(40),
    });
    await eventually(
      async () => link.commands(),
      (c) => c.length === 1,
    );
    expect(link.commands()[0]!.params).to.deep.equal({ users: users(40) });
    expect(link.flags.at(-1), 'restore command compressed').to.equal(1);
    link.send('result', { id: restore.id, status: 'DONE', output: { added: 40, updated: 0 } });
    // Agent → controller: an export of 2,000 users.
    const exported = await commands.enqueue(h.client.id, agent.allocationId!, 'hotspot.users.export', {});
    await eventually(
      async () => link.commands(),
      (c) => c.length === 2,
    );
    const output = { users: users(2000), count: 2000 };
    const frame = link.send('result', { id: exported.id, status: 'DONE', output });
    expect(frame[1], 'export result compressed').to.equal(1);
    expect(frame.length).to.be.below(JSON.stringify(output).length / 4);
    const done = await commands.waitForResult(h.client.id, exported.id, 5000);
    expect(done.state).to.equal('DONE');
    expect(done.output).to.deep.equal(output);
  });

  it('MACs large frames with Poly1305 only on a link whose hello named it, beside one that did not', async () => {
    const { commands } = h.t.controller.services;
    const poly = await v3Agent({ capabilities: [MAC_POLY1305_FEATURE] });
    const hmac = await v3Agent();
    await Promise.all([poly.link.welcomed(), hmac.link.welcomed()]);
    for (const { agent, link } of [poly, hmac]) {
      const welcome = link.welcome[0]!.body as MessageBody<'welcome'>;
      expect(welcome.features).to.include(MAC_POLY1305_FEATURE);
      expect(h.t.controller.services.hub.featuresOf(agent.allocationId!)).to.deep.equal(
        link === poly.link ? [MAC_POLY1305_FEATURE] : [],
      );
    }
    expect(poly.link.keys!.poly1305).to.be.a('string');
    expect(hmac.link.keys!.poly1305).to.equal(undefined);
    // Controller → agent: a frame well over 4 KiB each (a script that does not compress much),
    // opened with the keys each link derived.
    const noise = Array.from({ length: 3000 }, (_, i) => ((i * 2654435761) >>> 0).toString(36)).join('');
    for (const { agent, link } of [poly, hmac]) {
      await commands.enqueue(h.client.id, agent.allocationId!, 'router.script.apply', {
        name: 'noise',
        source: noise.slice(0, 20_000),
      });
      await eventually(
        async () => link.commands(),
        (c) => c.length === 1,
      );
      expect(link.lengths.at(-1)).to.be.above(4096 + 26);
    }
    // Agent → controller: a report that does not compress below 4 KiB, acknowledged on each link.
    for (const { link } of [poly, hmac]) {
      const id = crypto.randomUUID();
      const frame = link.send('report', { id, kind: 'event', at: new Date().toISOString(), data: { noise } });
      expect(frame.length).to.be.above(4096 + 26);
      await eventually(
        async () => link.messages,
        (m) => m.some((x) => x.type === 'report_ack' && x.body.ids.includes(id)),
      );
    }
    // Each link's large frames under the other MAC: refused before they are read.
    const report = {
      id: crypto.randomUUID(),
      kind: 'event' as const,
      at: new Date().toISOString(),
      data: { noise },
    };
    poly.link.send('report', report, { keys: { sid: poly.link.sid, material: poly.link.keys!.material } });
    hmac.link.send('report', report, { keys: { ...hmac.link.keys!, poly1305: poly.link.keys!.poly1305! } });
    for (const { link } of [poly, hmac]) {
      expect(await link.closed).to.equal(1008);
      expect(link.error).to.deep.include({ code: 'BAD_SIGNATURE' });
    }
  });

  const refusals: Array<[string, (link: V3Link) => void, string]> = [
    [
      'a frame whose MAC does not verify, before reading it (garbage that is not JSON)',
      (link) => {
        const frame = link.send('ping', { t: 1 });
        frame.write('{garbage', 26);
        link.sendRaw(frame);
      },
      'BAD_SIGNATURE',
    ],
    [
      'a replayed frame',
      (link) => {
        const frame = link.send('ping', { t: 1 });
        link.sendRaw(frame);
      },
      'REPLAYED_SEQUENCE',
    ],
    [
      'an out-of-order frame',
      (link) => {
        link.send('ping', { t: 1 }, { seq: 5 });
        link.send('ping', { t: 2 }, { seq: 4 });
      },
      'REPLAYED_SEQUENCE',
    ],
    [
      'a frame MAC-ed with keys from an ephemeral key that was not in the signed hello',
      (link) => {
        // Right session, right identity keys, the controller's ephemeral key: only ours is another.
        const keys = deriveSessionKeys({
          role: 'agent',
          sid: link.sid,
          own: generateEphemeralKeyPair(),
          peerPublicKey: (link.welcome[0]!.body as MessageBody<'welcome'>).session_key!,
          agentKey: link.agent.keys.publicKey,
          controllerKey: link.agent.controllerKey!,
        });
        link.send('ping', { t: 1 }, { keys });
      },
      'BAD_SIGNATURE',
    ],
  ];
  for (const [name, act, code] of refusals) {
    it(`refuses ${name} and closes the link`, async () => {
      const { link } = await v3Agent();
      await link.welcomed();
      act(link);
      expect(await link.closed).to.equal(1008);
      expect(link.error).to.deep.include({ code });
    });
  }

  it('refuses a frame of the previous session of the same agent', async () => {
    const { agent, link } = await v3Agent();
    await link.welcomed();
    const old = link.send('ping', { t: 1 });
    link.close();
    await link.closed;
    const next = new V3Link(h.agentUrl, agent);
    await next.welcomed();
    // Same agent, same sequence number, but the keys and session id of another connection.
    next.sendRaw(old);
    expect(await next.closed).to.equal(1008);
    expect(next.error).to.deep.include({ code: 'BAD_SIGNATURE' });
  });

  it('refuses a hello whose session key was swapped on the path, and a version 3 hello without one', async () => {
    // Someone on the path puts their own key in the agent's signed hello: the signature no longer holds.
    const swapped = await v3Agent({
      onPath: (hello) =>
        ({
          ...hello,
          body: { ...hello.body, session_key: generateEphemeralKeyPair().publicKey },
        }) as AnyEnvelope,
    });
    expect(await swapped.link.closed).to.equal(1008);
    expect(swapped.link.error).to.deep.include({ code: 'AGENT_UNKNOWN' });
    expect(swapped.link.keys).to.equal(undefined);
    const missing = await v3Agent({ withoutKey: true });
    expect(await missing.link.closed).to.equal(1008);
    expect(missing.link.error).to.deep.include({ code: 'BAD_MESSAGE' });
  });
});
