import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';
import { FakeAgent, SAMPLE_FACTS } from '../../support/fake-agent.js';

const DAY = 86_400_000;
const CODE = /^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/;

forEachDatabase('allocations', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database, { publicUrl: 'https://ctl.example.net/' })));
  afterEach(async () => h.t.close());

  const list = (token: string) => h.t.request('GET', '/api/v1/clients/allocations', { token });

  it('creates an allocation with a one-time code valid 24 h and the install commands', async () => {
    const res = await h.t.request('POST', '/api/v1/clients/allocations', {
      token: h.client.token,
      body: { label: '  Boutique Plateau ' },
    });
    expect(res.status).to.equal(201);
    expect(res.body.success).to.equal(true);
    const { allocation, enrolment } = res.body.data;
    expect(allocation).to.include({
      label: 'Boutique Plateau',
      created_at: h.t.clock.now().toISOString(),
      status: 'AWAITING_ENROLMENT',
      link_state: 'DISCONNECTED',
      last_seen_at: null,
      enrolled_at: null,
    });
    expect(allocation.id).to.match(/^[0-9a-f-]{36}$/);
    expect(allocation.router.serial).to.equal(null);
    expect(enrolment.code).to.match(CODE);
    expect(Date.parse(enrolment.expires_at) - h.t.clock.now().getTime()).to.equal(DAY);
    expect(allocation.enrolment_expires_at).to.equal(enrolment.expires_at);
    expect(enrolment.controller_url).to.equal('https://ctl.example.net');
    expect(enrolment.install.linux.join('\n'))
      .to.include(enrolment.code)
      .and.include('https://ctl.example.net');
    const routeros = enrolment.install.routeros_container.join('\n');
    expect(routeros).to.include(`value="${enrolment.code}"`).and.include('/container/add');

    // Stored hashed only.
    const row = await h.t.db.db
      .selectFrom('allocations')
      .selectAll()
      .where('id', '=', allocation.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).to.not.include(enrolment.code.replaceAll('-', ''));
    expect(row.enrol_code_hash).to.equal(
      createHash('sha256').update(enrolment.code.replaceAll('-', '')).digest('hex'),
    );

    const listed = await list(h.client.token);
    expect(listed.status).to.equal(200);
    expect(listed.body.data).to.deep.equal([allocation]);
  });

  it('gives every allocation its own code', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 5; i++) codes.add((await h.allocate()).enrolment.code);
    expect(codes.size).to.equal(5);
    expect((await list(h.client.token)).body.data).to.have.length(5);
  });

  it('lists the link state and the facts the agent reported', async () => {
    const { allocation, enrolment } = await h.allocate();
    const agent = new FakeAgent(h.agentUrl);
    const link = await agent.enrol(enrolment.code, {
      serial: SAMPLE_FACTS.serial,
      model: SAMPLE_FACTS.model,
    });
    let [listed] = (await list(h.client.token)).body.data;
    expect(listed).to.include({ id: allocation.id, status: 'ENROLLED', link_state: 'CONNECTED' });
    expect(listed.last_seen_at).to.equal(h.t.clock.now().toISOString());
    expect(listed.enrolment_expires_at).to.equal(null);
    expect(listed.router).to.include({
      serial: SAMPLE_FACTS.serial,
      model: SAMPLE_FACTS.model,
      architecture: null,
    });

    const { uptime_seconds: _, ...facts } = SAMPLE_FACTS;
    link.send('report', {
      id: '0b7d5f4e-3c2a-4b1d-9e8f-7a6b5c4d3e2f',
      kind: 'facts',
      at: new Date().toISOString(),
      data: SAMPLE_FACTS,
    });
    await link.waitFor('report_ack');
    [listed] = (await list(h.client.token)).body.data;
    expect(listed.router).to.include(facts);

    h.t.clock.advance(5000);
    await link.close();
    [listed] = await eventually(
      async () => (await list(h.client.token)).body.data,
      ([a]) => a.link_state === 'DISCONNECTED',
    );
    expect(listed.last_seen_at).to.equal(h.t.clock.now().toISOString());
  });

  it('refuses bad input, missing tokens and other kinds of account', async () => {
    const tech = await h.t.account('technician');
    const cases: [string, { token?: string; body?: unknown }, number, string][] = [
      ['no token', { body: {} }, 401, 'UNAUTHENTICATED'],
      ['a technician', { token: tech.token, body: {} }, 403, 'FORBIDDEN'],
      ['an empty label', { token: h.client.token, body: { label: '  ' } }, 400, 'VALIDATION_ERROR'],
      ['a label that is a number', { token: h.client.token, body: { label: 7 } }, 400, 'VALIDATION_ERROR'],
      [
        'a label too long',
        { token: h.client.token, body: { label: 'x'.repeat(101) } },
        400,
        'VALIDATION_ERROR',
      ],
    ];
    for (const [what, options, status, code] of cases) {
      const res = await h.t.request('POST', '/api/v1/clients/allocations', options);
      expect(res.status, what).to.equal(status);
      expect(res.body.error.code, what).to.equal(code);
    }
    expect((await h.t.request('GET', '/api/v1/clients/allocations')).status).to.equal(401);
    expect((await list(tech.token)).status).to.equal(403);
    expect((await list(h.client.token)).body.data).to.deep.equal([]);
  });

  it("never shows or lets anyone use another tenant's allocation (404, never 403)", async () => {
    const { allocation } = await h.allocate();
    const other = await h.t.account('client');
    expect((await list(other.token)).body.data).to.deep.equal([]);
    const get = await h.t.request('GET', `/api/v1/clients/allocations/${allocation.id}`, {
      token: other.token,
    });
    expect(get.status).to.equal(404);
    expect(get.body.error.code).to.equal('ALLOCATION_NOT_FOUND');
    const post = await h.t.request('POST', `/api/v1/clients/allocations/${allocation.id}/commands`, {
      token: other.token,
      body: { name: 'router.ping', params: {} },
    });
    expect(post.status).to.equal(404);
    expect(post.body.error.code).to.equal('ALLOCATION_NOT_FOUND');

    const mine = await h.t.request('POST', `/api/v1/clients/allocations/${allocation.id}/commands`, {
      token: h.client.token,
      body: { name: 'router.ping', params: {} },
    });
    expect(mine.status).to.equal(202);
    const theirs = await h.t.request(
      'GET',
      `/api/v1/clients/allocations/${allocation.id}/commands/${mine.body.data.id}`,
      { token: other.token },
    );
    expect(theirs.status).to.equal(404);
    expect(theirs.body.error.code).to.equal('COMMAND_NOT_FOUND');
    // The other tenant's own allocation does not open a door to this command either.
    const { allocation: otherAllocation } = await h.allocate(other.token);
    const crossed = await h.t.request(
      'GET',
      `/api/v1/clients/allocations/${otherAllocation.id}/commands/${mine.body.data.id}`,
      { token: other.token },
    );
    expect(crossed.status).to.equal(404);
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    const bad = await h.t.request('GET', '/api/v1/clients/allocations/not-a-uuid', { token: h.client.token });
    expect(bad.status).to.equal(400);
    expect(bad.body.details[0].field).to.equal('id');
    const unknown = await h.t.request(
      'GET',
      '/api/v1/clients/allocations/00000000-0000-4000-8000-000000000000',
      {
        token: h.client.token,
      },
    );
    expect(unknown.status).to.equal(404);
  });

  it('reads the enrolment as expired once the 24 h are over', async () => {
    const { allocation } = await h.allocate();
    h.t.clock.advance(DAY);
    expect(await h.allocation(allocation.id)).to.include({ status: 'ENROLMENT_EXPIRED' });
  });
});

forEachDatabase('allocations without a public URL', (database) => {
  it('defaults the controller URL to http://<host>:<bound port>', async () => {
    const h = await startHub(database);
    try {
      const { enrolment } = await h.allocate();
      const port = new URL(h.agentUrl).port;
      expect(enrolment.controller_url).to.equal(`http://127.0.0.1:${port}`);
    } finally {
      await h.t.close();
    }
  });
});
