// POST /api/v1/clients/remote-access/management-probe with an enrolled (fake) agent: the exact
// refusals, idempotency by operation id, each prohibition on retiring the previous transport, the
// retirement itself, keys checked with `wg pubkey`, and no secret in clear anywhere.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { forEachDatabase } from '../../support/databases.js';
import { FakeAgent, type CommandBody } from '../../support/fake-agent.js';
import { eventually } from '../hub/hub-fixture.js';
import { startRemoteAccess, type RemoteAccessTest } from './remote-access-fixture.js';

const opId = (n: number) => `01930000-0000-7000-8000-${String(n).padStart(12, '0')}`;

forEachDatabase('remote access: management probe', (database) => {
  let h: RemoteAccessTest;
  let agent: FakeAgent;
  const commands: CommandBody[] = [];
  /** What the router side proves for the next probes. */
  let router = { running: true, handshake: true, reachable: true };
  let wg: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  let allocationId: string;

  before(async () => {
    h = await startRemoteAccess(database, { listen: true });
    wg = (await h.resolve({ routeros_version: '7.19', router_serial: 'PRB7001' })).body.data;
    allocationId = wg.allocation_id;
    agent = new FakeAgent(`${h.baseUrl.replace('http', 'ws')}/agent/v1`);
    agent.execute = (c) => {
      commands.push(c);
      const p = c.params as Record<string, unknown>;
      switch (c.name) {
        case 'vpn.wireguard.apply':
          return {
            status: 'DONE',
            output: { interface: p.interface, public_key: pubkey(String(p.private_key)) },
          };
        case 'vpn.sstp.apply':
          return { status: 'DONE', output: { interface: p.interface } };
        case 'vpn.transport.remove':
          return { status: 'DONE', output: { removed: true } };
        case 'vpn.rescue.enable':
          return { status: 'DONE', output: { state: 'ENABLING' } };
        case 'router.login.set':
          if (p.password === 'router-away-pw')
            return {
              status: 'FAILED',
              fault: { code: 'ROUTER_UNREACHABLE', message: 'no API session', retryable: true },
            };
          return p.password === 'wrong-password'
            ? {
                status: 'FAILED',
                fault: { code: 'ROUTER_AUTH_FAILED', message: 'login refused', retryable: false },
              }
            : { status: 'DONE', output: { applied: true, api_port: p.api_port } };
        case 'vpn.probe':
          return {
            status: 'DONE',
            output: {
              present: true,
              running: router.running,
              connected_seconds_ago: router.handshake ? 3 : null,
              rx_bytes: router.handshake ? 500 : 0,
              tx_bytes: router.handshake ? 500 : 0,
              address_present: true,
              ping_sent: 3,
              ping_received: router.reachable ? 3 : 0,
            },
          };
        default:
          return { status: 'DONE', output: {} };
      }
    };
    await agent.enrol(wg.enrolment.code);
    await eventually(
      () => h.t.request('GET', `/api/v1/clients/allocations/${allocationId}`, { token: h.client.token }),
      (r) => r.body.data.link_state === 'CONNECTED',
    );
  });
  after(async () => {
    agent.link?.close();
    await h.close();
  });

  /** The VPN end sees (or not) the data plane of a WireGuard key or an SSTP user. */
  const serverSees = (protocol: 'WIREGUARD' | 'SSTP', key: string, seen: boolean) => {
    const s = protocol === 'WIREGUARD' ? h.vpn.peers.get(key) : h.vpn.accounts.get(key);
    s!.connectedAt = seen ? h.t.clock.now().toISOString() : null;
    s!.rxBytes = seen ? 1000 : 0;
  };
  const attempt = (id: string, token = h.client.token) =>
    h.t.request('GET', `/api/v1/clients/remote-access/transport-attempts/${id}`, { token });

  it('refuses a probe without candidate_channel_id (400 VPN_CANDIDATE_CHANNEL_REQUIRED), nothing inferred', async () => {
    const res = await h.probe({
      operation_id: opId(1),
      allocation_id: allocationId,
      requested_transport: 'WIREGUARD',
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('VPN_CANDIDATE_CHANNEL_REQUIRED');
    expect((await attempt(opId(1))).status).to.equal(404);
  });

  it('refuses anything that is not a channel of that allocation (400 VPN_CANDIDATE_CHANNEL_NOT_FOUND)', async () => {
    const theirs = (await h.resolve({ routeros_version: '7.19', router_serial: 'PRB7999' }, h.other.token))
      .body.data;
    const mineElsewhere = (await h.resolve({ routeros_version: '7.19', router_serial: 'PRB7002' })).body.data;
    for (const candidate of [
      'WIREGUARD',
      'SSTP',
      wg.protocols[0].profile_id,
      opId(99),
      theirs.transport_channels[0].channel_id,
      mineElsewhere.transport_channels[0].channel_id,
      42,
    ]) {
      const res = await h.probe({
        operation_id: opId(2),
        allocation_id: allocationId,
        candidate_channel_id: candidate,
        requested_transport: 'WIREGUARD',
      });
      expect(res.status, String(candidate)).to.equal(400);
      expect(res.body.error.code).to.equal('VPN_CANDIDATE_CHANNEL_NOT_FOUND');
    }
    const foreign = await h.probe({
      operation_id: opId(3),
      allocation_id: theirs.allocation_id,
      candidate_channel_id: theirs.transport_channels[0].channel_id,
      requested_transport: 'WIREGUARD',
    });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.error.code).to.equal('ALLOCATION_NOT_FOUND');
    expect((await attempt(opId(2))).status).to.equal(404);
  });

  it('applies WireGuard through the agent (key checked with wg pubkey), confirms it, and answers replays', async () => {
    const channel = wg.transport_channels[0];
    serverSees('WIREGUARD', wg.protocols[0].public_key, true);
    const body = {
      operation_id: opId(10),
      allocation_id: allocationId,
      candidate_channel_id: channel.channel_id,
      previous_channel_id: null,
      requested_transport: 'WIREGUARD',
    };
    const res = await h.probe(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({
      reachable: true,
      data_plane_confirmed: true,
      observed_transport: 'WIREGUARD',
      state: 'CONFIRMED',
      retire_previous_allowed: false,
    });
    const apply = commands.find((c) => c.name === 'vpn.wireguard.apply')!;
    const params = apply.params as Record<string, string>;
    expect(pubkey(params.private_key!)).to.equal(wg.protocols[0].public_key);
    expect(params.server_public_key).to.equal(h.vpn.publicKey);
    expect(params.address).to.equal(`${channel.tunnel_address}/32`);
    expect(h.vpn.peers.get(wg.protocols[0].public_key)!.peer.presharedKey).to.equal(params.preshared_key);
    // Once final, the command keeps no secret.
    const stored = await h.t.db.db
      .selectFrom('agent_commands')
      .select('params')
      .where('id', '=', apply.id)
      .executeTakeFirstOrThrow();
    expect(String(stored.params)).to.not.include(params.private_key!).and.not.include(params.preshared_key!);

    const sent = commands.length;
    const replay = await h.probe(body);
    expect(replay.body.data).to.deep.equal(res.body.data);
    expect(commands.length).to.equal(sent);
    expect((await attempt(opId(10))).body.data).to.deep.equal(res.body.data);
    expect((await attempt(opId(10), h.other.token)).status).to.equal(404);
    const other = await h.probe({ ...body, requested_transport: 'SSTP' });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('IDEMPOTENCY_KEY_REUSED');

    const b = (await h.resolve({ routeros_version: '7.19', allocation_id: allocationId })).body.data;
    expect(b.transport_channels[0].state).to.equal('ACTIVE');
    expect(b.status).to.equal('ACTIVE');
    expect(b.transport_channels[0].last_data_plane_confirmed_at).to.be.a('string');
  });

  it('keeps the previous transport on every prohibition, then retires it only on a full proof', async () => {
    const b = (await h.resolve({ routeros_version: '7.19', allocation_id: allocationId, protocol: 'SSTP' }))
      .body.data;
    expect(b.active_transport_reason).to.equal('APP_REQUESTED');
    const [prev, cand] = b.transport_channels;
    const user = b.protocols.find((p: { protocol: string }) => p.protocol === 'SSTP').username;
    const probe = (n: number, over: Record<string, unknown> = {}) =>
      h.probe({
        operation_id: opId(n),
        allocation_id: allocationId,
        candidate_channel_id: cand.channel_id,
        previous_channel_id: prev.channel_id,
        requested_transport: 'SSTP',
        ...over,
      });
    const expectKept = async (n: number, refusal: string, over: Record<string, unknown> = {}) => {
      const res = await probe(n, over);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.retire_previous_allowed, refusal).to.equal(false);
      expect(res.body.data.retire_refusal).to.equal(refusal);
      expect(commands.filter((c) => c.name === 'vpn.transport.remove')).to.have.length(0);
      return res.body.data;
    };
    // Reachable, but no data plane at the VPN end: the old path may be what answers.
    serverSees('SSTP', user, false);
    const noData = await expectKept(20, 'DATA_PLANE_NOT_CONFIRMED');
    expect(noData).to.include({
      reachable: true,
      data_plane_confirmed: false,
      state: 'PENDING',
      observed_transport: 'WIREGUARD',
    });
    // Data plane, but the router does not answer from its address.
    serverSees('SSTP', user, true);
    router = { running: true, handshake: true, reachable: false };
    await expectKept(21, 'NOT_REACHABLE');
    router = { running: true, handshake: true, reachable: true };
    // Another protocol than the one asked for.
    await expectKept(22, 'OTHER_TRANSPORT_OBSERVED', { requested_transport: 'WIREGUARD' });
    // A candidate at the old channel's address.
    await h.t.db.db
      .updateTable('remote_access_channels')
      .set({ tunnel_address: prev.tunnel_address })
      .where('id', '=', cand.channel_id)
      .execute();
    await expectKept(23, 'SAME_ADDRESS_AS_PREVIOUS');
    await h.t.db.db
      .updateTable('remote_access_channels')
      .set({ tunnel_address: cand.tunnel_address })
      .where('id', '=', cand.channel_id)
      .execute();
    // The agent never answers in time: PENDING, nothing removed.
    agent.withholdResults = true;
    const pending = await expectKept(24, 'NOT_REACHABLE');
    expect(pending.state).to.equal('PENDING');
    agent.withholdResults = false;

    const allowed = await probe(25);
    expect(allowed.body.data).to.include({
      state: 'CONFIRMED',
      retire_previous_allowed: true,
      previous_retired: true,
    });
    const removal = commands.filter((c) => c.name === 'vpn.transport.remove');
    expect(removal.map((c) => c.params)).to.deep.equal([
      { protocol: 'WIREGUARD', interface: 'tn-wireguard' },
    ]);
    expect(h.vpn.calls).to.include(`wg remove ${b.protocols[0].public_key}`);
    const after = (await h.resolve({ routeros_version: '7.19', allocation_id: allocationId })).body.data;
    expect(after.transport_channels.map((c: { channel_id: string }) => c.channel_id)).to.deep.equal([
      cand.channel_id,
    ]);
    expect(after.active_transport).to.equal('SSTP');
    // The retired WireGuard keys stay stored (sealed) for a later switch back.
    const kept = await h.t.db.db
      .selectFrom('remote_access_profiles')
      .selectAll()
      .where('protocol', '=', 'WIREGUARD')
      .where('allocation_id', '=', allocationId)
      .execute();
    expect(kept).to.have.length(1);
    expect(kept[0]!.private_key_sealed).to.match(/^s1\./);
  });

  it("hands router credentials to that allocation's agent only, sealed at rest, never answered", async () => {
    const deposit = (body: unknown, token = h.client.token) =>
      h.t.request('POST', '/api/v1/clients/remote-access/credentials', { token, body });
    const status = (id: string, token = h.client.token) =>
      h.t.request('GET', `/api/v1/clients/remote-access/credentials?allocation_id=${id}`, { token });
    expect((await status(allocationId)).body.data).to.include({ stored: false, state: null });
    const sent = commands.length;
    const res = await deposit({
      allocation_id: allocationId,
      username: 'tn-api',
      password: 'R0uter-Secret-Pw',
      api_port: 8729,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.data).to.include({ allocation_id: allocationId, stored: true, state: 'APPLIED' });
    expect(JSON.stringify(res.body)).to.not.include('R0uter-Secret-Pw');
    expect(JSON.stringify(res.body)).to.not.include('tn-api');
    // The agent got them, as the secret params of one command of its own allocation.
    const handed = commands.slice(sent).filter((c) => c.name === 'router.login.set');
    expect(handed.map((c) => c.params)).to.deep.equal([
      { user: 'tn-api', password: 'R0uter-Secret-Pw', api_port: 8729 },
    ]);
    const row = await h.t.db.db
      .selectFrom('agent_commands')
      .selectAll()
      .where('name', '=', 'router.login.set')
      .executeTakeFirstOrThrow();
    expect(row.allocation_id).to.equal(allocationId);
    expect(JSON.parse(row.params)).to.deep.equal({
      user: '[redacted]',
      password: '[redacted]',
      api_port: 8729,
    });
    const shown = await h.t.request('GET', `/api/v1/clients/allocations/${allocationId}/commands/${row.id}`, {
      token: h.client.token,
    });
    expect(shown.body.data.params).to.deep.equal({
      user: '[redacted]',
      password: '[redacted]',
      api_port: 8729,
    });

    // Credentials the router refuses: REFUSED with the agent's fault; nothing else changes.
    const refused = await deposit({
      allocation_id: allocationId,
      username: 'tn-api',
      password: 'wrong-password',
    });
    expect(refused.body.data).to.include({
      state: 'REFUSED',
      fault_code: 'ROUTER_AUTH_FAILED',
      applied_at: null,
    });

    // The router out of reach says nothing of the credentials: still PENDING, the fault named.
    const away1 = await deposit({
      allocation_id: allocationId,
      username: 'tn-api',
      password: 'router-away-pw',
    });
    expect(away1.body.data, JSON.stringify(away1.body)).to.include({
      state: 'PENDING',
      fault_code: 'ROUTER_UNREACHABLE',
    });

    // A slot whose agent never enrolled: kept PENDING, no command queued for it, even by the job.
    const away = (await h.resolve({ routeros_version: '7.11', router_serial: 'PRB7AWAY' })).body.data;
    const pending = await deposit({
      allocation_id: away.allocation_id,
      username: 'admin',
      password: 'Away-Secret-Pw',
    });
    expect(pending.body.data).to.include({ stored: true, state: 'PENDING' });
    const admin = await h.t.admin();
    const job = await h.t.request('POST', '/api/v1/admin/jobs/REMOTE_ACCESS_CREDENTIALS/run', {
      token: admin.token,
    });
    expect(job.status, JSON.stringify(job.body)).to.be.oneOf([200, 202]);
    expect((await status(away.allocation_id)).body.data.state).to.equal('PENDING');
    const queued = await h.t.db.db
      .selectFrom('agent_commands')
      .select('id')
      .where('allocation_id', '=', away.allocation_id)
      .execute();
    expect(queued).to.deep.equal([]);

    expect(
      (await deposit({ allocation_id: allocationId, username: 'admin', password: 'x' }, h.other.token))
        .status,
    ).to.equal(404);
    expect((await status(allocationId, h.other.token)).status).to.equal(404);
    const invalid = await deposit({ allocation_id: allocationId, username: '', password: 'x' });
    expect(invalid.status).to.equal(400);
    expect((await status(allocationId)).body.data.state).to.equal('PENDING');
  });

  it('rescue relay routes: bad input refused, other tenants not found, state on the slot only', async () => {
    const post = (body: unknown, token = h.client.token) =>
      h.t.request('POST', '/api/v1/clients/remote-access/rescue', { token, body });
    const get = (q: string, token = h.client.token) =>
      h.t.request('GET', `/api/v1/clients/remote-access/rescue${q}`, { token });
    expect((await post({})).status).to.equal(400);
    expect((await post({ allocation_id: 'x' })).body.error.code).to.equal('VALIDATION_ERROR');
    expect((await post({ allocation_id: allocationId }, h.other.token)).status).to.equal(404);
    expect((await get('')).status).to.equal(400);
    expect((await get(`?allocation_id=${allocationId}`, h.other.token)).status).to.equal(404);
    expect((await get(`?allocation_id=${allocationId}`)).body.data).to.include({
      state: null,
      profile_stored: false,
    });
    const res = await post({ allocation_id: allocationId });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.data).to.include({ state: 'ENABLING' });
    expect(res.body.data.read_not_before).to.equal(
      new Date(h.t.clock.now().getTime() + 25_000).toISOString(),
    );
    expect((await get(`?allocation_id=${allocationId}`)).body.data.state).to.equal('ENABLING');
  });

  it('leaves no secret in clear in the database or the logs', async () => {
    const secrets: string[] = ['R0uter-Secret-Pw', 'Away-Secret-Pw', 'wrong-password', 'router-away-pw'];
    for (const c of commands) {
      const p = c.params as Record<string, unknown>;
      for (const k of ['private_key', 'preshared_key', 'password'])
        if (typeof p[k] === 'string') secrets.push(p[k] as string);
    }
    expect(secrets.length).to.be.greaterThan(3);
    const dump = await dumpDatabase(h);
    const logs = h.logs.join('\n');
    for (const s of secrets) {
      expect(dump, 'database').to.not.include(s);
      expect(logs, 'logs').to.not.include(s);
    }
  });
});

function pubkey(privateKey: string): string {
  return execFileSync('wg', ['pubkey'], { input: `${privateKey}\n` })
    .toString()
    .trim();
}

async function dumpDatabase(h: RemoteAccessTest): Promise<string> {
  const tables = [
    'remote_access_slots',
    'remote_access_profiles',
    'remote_access_channels',
    'remote_access_attempts',
    'agent_commands',
    'allocations',
  ];
  const parts: string[] = [];
  for (const t of tables)
    parts.push(JSON.stringify((await sql`select * from ${sql.table(t)}`.execute(h.t.db.db)).rows));
  return parts.join('\n');
}
