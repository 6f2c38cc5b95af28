// The controller's end of the agent RADIUS relay: a `radius` frame from an authenticated agent is
// answered with the NAS of the agent's allocation, and only when the packet verifies against that
// NAS's secret. Real sockets: the controller listens, the agent is the protocol-level FakeAgent.
import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import radius from 'radius';
import { forEachDatabase } from '../../support/databases.js';
import type { FakeLink } from '../../support/fake-agent.js';
import { RadiusTestClient, type RadiusReply } from '../../support/radius-client.js';
import { secretOf, startNasTest, type NasTest, type Site } from '../nas/nas-fixture.js';

/** An Access-Request as a hotspot sends it (PAP, Message-Authenticator), signed with `secret`. */
function accessRequest(code: string, secret: string, password = code): Buffer {
  const client = new RadiusTestClient({ port: 9, secret });
  try {
    return client.encode('Access-Request', [
      ['User-Name', code],
      ['User-Password', password],
      ['Calling-Station-Id', 'AA:BB:CC:00:11:22'],
    ]);
  } finally {
    client.close();
  }
}

/** Sends a request over the link; the answer frame's packet, or null when none comes in time. */
async function relay(link: FakeLink, packet: Buffer, peer = 'auth:192.168.88.1:40000', waitMs = 1_500) {
  const id = randomUUID();
  link.send('radius', { id, packet: packet.toString('base64'), peer });
  const frame = await link.waitFor('radius', (b) => b.id === id, waitMs).catch(() => null);
  return frame ? Buffer.from(frame.body.packet, 'base64') : null;
}

/** Checks the reply the way a NAS does: Response Authenticator and Message-Authenticator. */
function verify(request: Buffer, raw: Buffer, secret: string): RadiusReply {
  const decoded = radius.decode({ packet: raw, secret });
  const types: number[] = [];
  let ma: RadiusReply['messageAuthenticator'] = 'absent';
  for (let at = 20; at < raw.length; at += raw[at + 1]!) {
    types.push(raw[at]!);
    if (raw[at] !== 80) continue;
    // Access replies: HMAC-MD5 over the reply carrying the request's authenticator (RFC 3579 §3.2).
    const copy = Buffer.from(raw);
    request.copy(copy, 4, 4, 20);
    copy.fill(0, at + 2, at + 18);
    const valid = createHmac('md5', secret)
      .update(copy)
      .digest()
      .equals(raw.subarray(at + 2, at + 18));
    ma = valid ? 'valid' : 'invalid';
  }
  return {
    raw,
    code: decoded.code,
    attributes: decoded.attributes,
    authentic: radius.verify_response({ response: raw, request, secret }),
    messageAuthenticator: ma,
    attributeTypes: types,
  };
}

forEachDatabase('RADIUS relay through the agent link (controller side)', (database) => {
  let t: NasTest;
  beforeEach(async () => (t = await startNasTest(database)));
  afterEach(async () => {
    const running = t;
    t = undefined as unknown as NasTest;
    await running?.t.close();
  });

  /** A site whose router is enrolled as a NAS (app_apply: PENDING already answers); its secret. */
  async function nasSite(serial: string, token?: string): Promise<{ site: Site; secret: string }> {
    const site = await t.site(serial, token);
    const res = await t.radius('POST', '/nas', {
      body: { router_serial: serial, apply_mode: 'app_apply' },
      ...(token ? { token } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { site, secret: secretOf(res.body.provisioning.script) };
  }

  async function ticket(clientId: string): Promise<string> {
    const { tickets, profiles } = t.t.controller.services;
    await profiles.setProfile(clientId, 'P1', {
      rate_limit: '2M/2M',
      data_limit_bytes: null,
      time_limit_seconds: null,
      validity_seconds: null,
    });
    const [created] = await tickets.createTickets(clientId, { profileId: 'P1', quantity: 1 });
    return created!.code;
  }

  it('answers a relayed Access-Request with an Access-Accept carrying Message-Authenticator', async () => {
    const { site, secret } = await nasSite('RELAY0001');
    const code = await ticket(t.client.id);
    const request = accessRequest(code, secret);
    const raw = await relay(site.agent.link!, request);
    expect(raw, 'an answer frame').to.be.instanceOf(Buffer);
    const reply = verify(request, raw!, secret);
    expect(reply.code).to.equal('Access-Accept');
    expect(reply.authentic).to.equal(true);
    expect(reply.attributeTypes[0], 'Message-Authenticator first').to.equal(80);
    expect(reply.messageAuthenticator).to.equal('valid');

    // A wrong password is answered (Access-Reject), not dropped: the NAS is known and authentic.
    const bad = accessRequest(code, secret, 'nope');
    const rejected = await relay(site.agent.link!, bad);
    expect(verify(bad, rejected!, secret).code).to.equal('Access-Reject');
  });

  it('stays silent for a packet signed with the wrong secret', async () => {
    const { site } = await nasSite('RELAY0002');
    const code = await ticket(t.client.id);
    expect(await relay(site.agent.link!, accessRequest(code, 'not-the-secret'))).to.equal(null);
  });

  it('stays silent for an allocation without a NAS, and for a frame without a usable peer', async () => {
    const site = await t.site('RELAY0003');
    const code = await ticket(t.client.id);
    expect(await relay(site.agent.link!, accessRequest(code, 'whatever'))).to.equal(null);
    const { site: enrolled, secret } = await nasSite('RELAY0004');
    expect(await relay(enrolled.agent.link!, accessRequest(code, secret), 'coa')).to.equal(null);
    // The link survives all of this.
    expect(await relay(enrolled.agent.link!, accessRequest(code, secret))).to.be.instanceOf(Buffer);
  });

  it("drops a packet signed with another tenant's NAS secret: the link names the NAS", async () => {
    const a = await nasSite('RELAY00A1');
    const other = await t.t.account('client');
    await t.license(other.id);
    const b = await nasSite('RELAY00B1', other.token);
    const codeB = await ticket(other.id);
    // Tenant B's ticket, signed with B's secret, on A's link: verified against A's secret, dropped.
    expect(await relay(a.site.agent.link!, accessRequest(codeB, b.secret))).to.equal(null);
    // The same packet on B's own link is answered.
    const request = accessRequest(codeB, b.secret);
    expect(verify(request, (await relay(b.site.agent.link!, request))!, b.secret).code).to.equal(
      'Access-Accept',
    );
  });
});
