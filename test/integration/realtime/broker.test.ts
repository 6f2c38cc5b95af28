// The broker at /realtime through the unmodified `centrifuge` client: connect with an account JWT,
// the Origin check, every error code, each hub event on its channel, presence, history, and
// recovery after a dropped socket.
import { expect } from 'chai';
import type { Centrifuge } from 'centrifuge';
import WebSocket from 'ws';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { Hub } from '../support-hub/hub-fixture.js';
import { PresenceWriter } from '../../../controller/modules/realtime/presence-writer.js';
import { Collector, connect, originWebSocket } from './realtime-fixture.js';

const ALLOWED = 'https://app.ticketnet.example';

forEachDatabase('realtime broker', (database) => {
  let t: TestController;
  let hub: Hub;
  let url: string;
  const clients: Centrifuge[] = [];
  beforeEach(async () => {
    t = await startTestController(database, { realtimeAllowedOrigins: `${ALLOWED}/` });
    hub = await new Hub(t).init();
    const { port } = await t.controller.listen();
    url = `ws://127.0.0.1:${port}/realtime`;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await t.close();
  });

  async function connected(token: string, ws?: unknown): Promise<Centrifuge> {
    const out = await connect(url, token, ws);
    clients.push(out.client);
    expect(out.connected, `${out.code} ${out.reason}`).to.equal(true);
    return out.client;
  }

  it('admits an account token and refuses anything else (3500); checks browsers against the allowed origins', async () => {
    const tech = await hub.expert();
    await connected(tech.token);
    for (const token of ['', 'not-a-jwt', `${tech.token}x`]) {
      const out = await connect(url, token);
      clients.push(out.client);
      expect(out.connected).to.equal(false);
      expect(out.code, token).to.equal(3500);
    }
    await connected(tech.token, originWebSocket(ALLOWED));
    const evil = await connect(url, tech.token, originWebSocket('https://evil.example'));
    clients.push(evil.client);
    expect(evil.connected).to.equal(false);
    // The refusal itself, as a browser sees it: 403 on the upgrade.
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url, { origin: 'https://evil.example' });
      ws.on('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      // The server ends the refused connection; a reset after the answer is not the test's concern.
      ws.on('error', () => undefined);
      ws.on('open', () => resolve(101));
    });
    expect(status).to.equal(403);
  });

  it('answers 102, 103, 104, 108, 112 through the client', async () => {
    const client = await connected((await t.account('client')).token);
    const unknown = client.newSubscription('nowhere:x');
    const code = new Promise<number>((resolve) => unknown.on('unsubscribed', (ctx) => resolve(ctx.code)));
    unknown.subscribe();
    expect(await code).to.equal(102);
    // support:missions is for non-internal technicians.
    const missions = client.newSubscription('support:missions');
    const denied = new Promise<number>((resolve) => missions.on('unsubscribed', (ctx) => resolve(ctx.code)));
    missions.subscribe();
    expect(await denied).to.equal(103);
    const err = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: { code: number }) => e.code,
      );
    expect(await err(client.publish('support:presence', { type: 'FAKE' }))).to.equal(103);
    expect(await err(client.publish('lobby', {}))).to.equal(103);
    expect(await err(client.rpc('anything', {}))).to.equal(104);
    expect(await err(client.presence('lobby'))).to.equal(108);
    expect(await err(client.history('lobby', { limit: 10 }))).to.equal(108);
    // History from another stream generation cannot be served: 112.
    await t.controller.services.realtime.publish('support:presence', { n: 1 });
    const since = { offset: 0, epoch: 'another-epoch' };
    expect(await err(client.history('support:presence', { limit: 10, since }))).to.equal(112);
    const { epoch } = await client.history('support:presence', { limit: 0 });
    const served = await client.history('support:presence', { limit: 10, since: { offset: 0, epoch } });
    expect(served.publications.map((p) => p.data)).to.deep.equal([{ n: 1 }]);
    // A name without a colon is in the default namespace: subscribing works, no offsets.
    const lobby = await new Collector(client, 'lobby').subscribe();
    await t.controller.services.realtime.publish('lobby', { hello: 1 });
    await lobby.count(1);
    expect(lobby.data).to.deep.equal([{ hello: 1 }]);
    expect(lobby.offsets).to.deep.equal([]);
  });

  it('answers 105, 107 and 109 to a raw client (the centrifuge client renews its token on 109), and closes 3501 on a command before connect or a frame that is not JSON', async () => {
    const tech = await hub.expert();
    const raw = (first: object[]) =>
      new Promise<{ replies: Record<string, unknown>[]; close?: number }>((resolve) => {
        const ws = new WebSocket(url);
        const replies: Record<string, unknown>[] = [];
        ws.on('open', () => ws.send(first.map((c) => JSON.stringify(c)).join('\n')));
        ws.on('message', (m) => {
          for (const line of m.toString().split('\n')) if (line) replies.push(JSON.parse(line));
          if (replies.length >= first.length) {
            ws.close();
            resolve({ replies });
          }
        });
        ws.on('close', (code) => resolve({ replies, close: code }));
      });
    const out = await raw([
      { id: 1, connect: { token: tech.token } },
      { id: 2, subscribe: { channel: 'support:presence' } },
      { id: 3, subscribe: { channel: 'support:presence' } },
      { id: 4, subscribe: { channel: '' } },
    ]);
    expect(out.replies.map((r) => (r.error as { code: number } | undefined)?.code ?? 0)).to.deep.equal([
      0, 0, 105, 107,
    ]);
    expect(out.replies[0]!.connect).to.include({ ping: 25, pong: true });
    expect((await raw([{ id: 1, subscribe: { channel: 'lobby' } }])).close).to.equal(3501);
    const garbage = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url);
      ws.on('open', () => ws.send('not json'));
      ws.on('close', (code) => resolve(code));
    });
    expect(garbage).to.equal(3501);
    t.clock.advance(31 * 86_400_000);
    const expired = await raw([{ id: 1, connect: { token: tech.token } }]);
    expect((expired.replies[0]!.error as { code: number }).code).to.equal(109);
    // The centrifuge client answered 109 asks for a new token, once, and connects with it.
    const renewed = await hub.relogin(tech);
    let asked = 0;
    const refreshed = await connect(url, tech.token, WebSocket, async () => {
      asked += 1;
      return renewed.token;
    });
    clients.push(refreshed.client);
    expect(refreshed.connected, `${refreshed.code} ${refreshed.reason}`).to.equal(true);
    expect(asked).to.equal(1);
  });

  it('carries PRO_STATUS_CHANGED and TICKET_CLAIMED on support:presence, NEW_BOUNTY_TICKET on support:missions', async () => {
    const watcher = await hub.expert();
    const internal = await hub.expert({ is_internal: true });
    const clientAccount = await t.account('client');
    const wc = await connected(watcher.token);
    const presence = await new Collector(wc, 'support:presence').subscribe();
    const missions = await new Collector(wc, 'support:missions').subscribe();
    const ic = await connected(internal.token);
    const refused = ic.newSubscription('support:missions');
    const denied = new Promise<number>((resolve) => refused.on('unsubscribed', (ctx) => resolve(ctx.code)));
    refused.subscribe();
    expect(await denied).to.equal(103);

    const e = await hub.expert();
    await t.request('POST', '/api/v1/support/presence', { token: e.token, body: {} });
    const m = await hub.mission(clientAccount.token, { is_urgent: true, subject: 'Urgent' });
    await hub.claim(e, m);
    await presence.count(3);
    const now = t.clock.now().toISOString();
    expect(presence.data, JSON.stringify(presence.offsets)).to.deep.equal([
      {
        type: 'PRO_STATUS_CHANGED',
        expert_id: e.id,
        isOnline: true,
        status_detail: 'AVAILABLE',
        updated_at: now,
      },
      { type: 'TICKET_CLAIMED', ticket_id: m, expert_id: e.id, updated_at: now },
      { type: 'PRO_STATUS_CHANGED', expert_id: e.id, isOnline: true, status_detail: 'BUSY', updated_at: now },
    ]);
    expect(presence.offsets).to.deep.equal([1, 2, 3]);

    const paid = await t.controller.services.support.createMission(clientAccount.id, {
      subject: 'Audit',
      category: 'firewall security audit',
      is_urgent: false,
      payment_status: 'ESCROWED',
      price_amount: 25_000,
    });
    await t.controller.services.support.announceBounty(paid.id);
    await missions.count(1);
    expect(missions.data[0]).to.deep.equal({
      type: 'NEW_BOUNTY_TICKET',
      ticket_id: paid.id,
      subject: 'Audit',
      category: 'FIREWALL_SECURITY_AUDIT',
      bounty_amount: 25_000,
      currency: 'XOF',
      is_urgent: false,
      created_at: paid.created_at,
    });
    // Never a bounty: a free mission, or a paid one whose funds are not held yet.
    for (const state of [
      { payment_status: 'FREE' as const },
      { status: 'PENDING_PAYMENT' as const, payment_status: 'ESCROWED' as const, price_amount: 9_000 },
    ]) {
      const m2 = await t.controller.services.support.createMission(clientAccount.id, {
        subject: 'Pas une prime',
        category: 'other',
        is_urgent: false,
        ...state,
      });
      const refused = await t.controller.services.support.announceBounty(m2.id).then(
        () => null,
        (err: { code?: string }) => err.code,
      );
      expect(refused).to.equal('MISSION_NOT_ESCROWED');
    }
    expect(missions.data).to.have.length(1);

    const who = await wc.presence('support:presence');
    expect(Object.values(who.clients).map((c) => c.user)).to.deep.equal([watcher.id]);
    expect(await wc.presenceStats('support:presence')).to.deep.equal({ numClients: 1, numUsers: 1 });
    const history = await wc.history('support:presence', { limit: 10 });
    expect(history.publications.map((p) => Number(p.offset))).to.deep.equal([1, 2, 3]);
    expect(history.offset).to.equal(3);

    // 90 s without a heartbeat: the sweep takes the expert offline and says so.
    t.clock.advance(90_000);
    expect((await hub.runJob('SUPPORT_PRESENCE_SWEEP')).result).to.deep.equal({ expired: 1 });
    await presence.count(4);
    expect(presence.data[3]).to.deep.equal({
      type: 'PRO_STATUS_CHANGED',
      expert_id: e.id,
      isOnline: false,
      status_detail: 'OFFLINE',
      updated_at: t.clock.now().toISOString(),
    });
  });

  it('recovers, in order, what was published while the socket was down', async () => {
    const tech = await hub.expert();
    const client = await connected(tech.token);
    const c = await new Collector(client, 'support:presence').subscribe();
    const broker = t.controller.services.realtime;
    await broker.publish('support:presence', { n: 1 });
    await c.count(1);
    let recovered: boolean | undefined;
    c.sub.on('subscribed', (ctx) => (recovered = ctx.recovered));
    // Drop the socket under the client (as a lost network would), then publish meanwhile.
    const dropped = new Promise((resolve) => client.once('connecting', resolve));
    (client as unknown as { _transport: { _transport: WebSocket } })._transport._transport.terminate();
    await dropped;
    for (let n = 2; n <= 6; n++) await broker.publish('support:presence', { n });
    await c.count(6);
    expect(recovered).to.equal(true);
    expect(c.data.map((d) => d.n)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(c.offsets).to.deep.equal([1, 2, 3, 4, 5, 6]);
    await broker.publish('support:presence', { n: 7 });
    await c.count(7);
    expect(c.offsets.at(-1)).to.equal(7);
  });
  it('keeps each subscriber gapless and in order through bursts, a subscriber joining midway included', async () => {
    const tech = await hub.expert();
    const broker = t.controller.services.realtime;
    const early = await new Collector(await connected(tech.token), 'support:presence').subscribe();
    const burst = (from: number) =>
      Promise.all(Array.from({ length: 20 }, (_, i) => broker.publish('support:presence', { n: from + i })));
    const first = burst(1);
    const late = await new Collector(await connected(tech.token), 'support:presence').subscribe();
    await first;
    await burst(21);
    await early.count(40);
    expect(early.offsets).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(early.data.map((d) => d.n)).size).to.equal(40);
    // The late one starts wherever its subscribe reply put it, then misses nothing.
    await late.count(20);
    const start = late.offsets[0]!;
    expect(late.offsets).to.deep.equal(Array.from({ length: 41 - start }, (_, i) => start + i));
  });

  it('sends a burst as newline-separated pushes, in offset order, the same frames to every socket at one position', async () => {
    const tech = await hub.expert();
    const raw = async () => {
      const ws = new WebSocket(url);
      const frames: string[] = [];
      const subscribed = new Promise<void>((resolve) =>
        ws.on('message', (m) => {
          const text = m.toString();
          if (text.startsWith('{"id":2')) resolve();
          else if (text.startsWith('{"push"')) frames.push(text);
        }),
      );
      await new Promise((r) => ws.once('open', r));
      ws.send(
        `${JSON.stringify({ id: 1, connect: { token: tech.token } })}\n${JSON.stringify({ id: 2, subscribe: { channel: 'support:presence' } })}`,
      );
      await subscribed;
      return { ws, frames };
    };
    const a = await raw();
    const b = await raw();
    const broker = t.controller.services.realtime;
    const stored = await Promise.all(
      Array.from({ length: 10 }, (_, n) => broker.publish('support:presence', { n })),
    );
    // Asked for together: stored together, offsets in the order asked.
    expect(stored.map((s) => s.offset)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const pushes = (frames: string[]) => frames.flatMap((f) => f.split('\n')).map((l) => JSON.parse(l));
    for (let i = 0; pushes(a.frames).length < 10 || pushes(b.frames).length < 10; i++) {
      if (i > 250) throw new Error('pushes missing');
      await new Promise((r) => setTimeout(r, 20));
    }
    const offsets = pushes(a.frames).map((p) => p.push.pub.offset);
    expect(offsets).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(pushes(a.frames).map((p) => p.push.pub.data.n)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pushes(a.frames).every((p) => p.push.channel === 'support:presence')).to.equal(true);
    expect(a.frames.length).to.be.at.most(10);
    // Both sockets held the same offsets throughout: the same bytes.
    expect(b.frames).to.deep.equal(a.frames);
    a.ws.close();
    b.ws.close();
  });

  it('gives publications asked for together offsets in the order asked, on a channel new to the database too', async () => {
    const broker = t.controller.services.realtime;
    const stored = await Promise.all(
      Array.from({ length: 12 }, (_, n) => broker.publish('support:never-used', { n })),
    );
    expect(stored.map((s) => s.offset)).to.deep.equal(Array.from({ length: 12 }, (_, i) => i + 1));
    const client = await connected((await hub.expert()).token);
    const history = await client.history('support:never-used', { limit: 20 });
    expect(history.publications.map((p) => [p.offset, (p.data as { n: number }).n])).to.deep.equal(
      Array.from({ length: 12 }, (_, i) => [i + 1, i]),
    );
  });

  it('writes presence in batches: every subscriber listed, a closed socket gone', async () => {
    const techs = await Promise.all([hub.expert(), hub.expert(), hub.expert()]);
    const subscribed = await Promise.all(
      techs.map(async (tech) => {
        const client = await connected(tech.token);
        await new Collector(client, 'support:presence').subscribe();
        return client;
      }),
    );
    const [watcher, , leaving] = subscribed;
    expect(await watcher!.presenceStats('support:presence')).to.deep.equal({ numClients: 3, numUsers: 3 });
    leaving!.disconnect();
    let stats = await watcher!.presenceStats('support:presence');
    for (let i = 0; stats.numClients !== 2 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      stats = await watcher!.presenceStats('support:presence');
    }
    expect(stats).to.deep.equal({ numClients: 2, numUsers: 2 });
    const who = await watcher!.presence('support:presence');
    expect(
      Object.values(who.clients)
        .map((c) => c.user)
        .sort(),
    ).to.deep.equal([techs[0]!.id, techs[1]!.id].sort());
  });

  it('applies presence writes of one turn in order: a removal after its add wins, an add after a removal stands', async () => {
    const errors: unknown[] = [];
    const writer = new PresenceWriter(t.db.db, (err) => errors.push(err));
    const row = (client_id: string, channel = 'support:presence') => ({
      client_id,
      channel,
      user_id: 'u',
      instance_id: 'writer-test',
      seen_at: t.clock.now().toISOString(),
    });
    writer.add(row('c1'));
    writer.add(row('c1', 'support:missions'));
    writer.add(row('c2'));
    writer.remove('c1', 'support:missions');
    writer.remove('c2');
    writer.add(row('c2'));
    writer.add(row('c3'));
    writer.remove('c3');
    await writer.flush();
    const rows = await t.db.db
      .selectFrom('realtime_presence')
      .select(['client_id', 'channel'])
      .where('instance_id', '=', 'writer-test')
      .orderBy('client_id')
      .execute();
    expect(rows).to.deep.equal([
      { client_id: 'c1', channel: 'support:presence' },
      { client_id: 'c2', channel: 'support:presence' },
    ]);
    expect(errors).to.deep.equal([]);
    await writer.stop();
    writer.add(row('c4'));
    await writer.flush();
    const after = await t.db.db
      .selectFrom('realtime_presence')
      .select('client_id')
      .where('client_id', '=', 'c4')
      .execute();
    expect(after).to.deep.equal([]);
  });

  it('reads an account once per few seconds of connects: a disabled account is refused after that', async () => {
    const tech = await hub.expert();
    await connected(tech.token);
    await t.db.db
      .updateTable('accounts')
      .set({ disabled_at: t.clock.now().toISOString() })
      .where('id', '=', tech.id)
      .execute();
    // Within the cache's five seconds the earlier read stands.
    await connected(tech.token);
    t.clock.advance(5_000);
    const refused = await connect(url, tech.token);
    clients.push(refused.client);
    expect(refused.connected).to.equal(false);
    expect(refused.code).to.equal(3500);
  });

  it('closes 3012 a socket that leaves a ping unanswered; the client, which answers, stays', async function () {
    this.timeout(20_000);
    // A controller of its own pinging every second.
    const quick = await startTestController(database, { realtimePingSeconds: 1 });
    try {
      const q = await new Hub(quick).init();
      const tech = await q.expert();
      const { port } = await quick.controller.listen();
      const quickUrl = `ws://127.0.0.1:${port}/realtime`;
      const answering = await connect(quickUrl, tech.token);
      clients.push(answering.client);
      expect(answering.connected).to.equal(true);
      let pings = 0;
      const code = await new Promise<number>((resolve) => {
        const ws = new WebSocket(quickUrl);
        ws.on('open', () => ws.send(JSON.stringify({ id: 1, connect: { token: tech.token } })));
        ws.on('message', (m) => {
          if (m.toString() === '{}') pings++;
        });
        ws.on('close', (c) => resolve(c));
      });
      expect(code).to.equal(3012);
      expect(pings).to.equal(1);
      expect(answering.client.state).to.equal('connected');
    } finally {
      await quick.close();
    }
  });
});
