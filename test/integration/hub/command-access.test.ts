// Who may run which catalogue command: a client's generic command route runs only the reads; a
// command that changes the router is refused there (nothing queued) and stays reachable through
// the modules that guard it (the runner they use).
import { expect } from 'chai';
import { COMMANDS, type CommandName } from '../../../protocol/index.js';
import { forEachDatabase } from '../../support/databases.js';
import { eventually, startHub, type HubTest } from './hub-fixture.js';

/** Valid params for every catalogue command: a command added without a row here does not compile. */
const VALID_PARAMS: Record<CommandName, Record<string, unknown>> = {
  'router.facts': {},
  'router.ping': {},
  'hotspot.users.export': { include_profiles: true },
  'hotspot.users.names': {},
  'hotspot.users.count': {},
  'hotspot.users.remove': { names: ['v1'] },
  'hotspot.profiles.restore': { profiles: [{ name: '1h' }] },
  'hotspot.users.restore': { users: [{ name: 'v1', password: 'p', profile: '1h', disabled: false }] },
  'backup.save': { name: 'nightly' },
  'resellers.export': {},
  'sales.export': { limit: 10 },
  'router.script.apply': { name: 'ticketnet-radius', source: '/radius add secret="s3cr3t"' },
  'radius.status': {},
  'hotspot.users.columns': { include_profiles: true },
  'hotspot.users.tally': {},
  // --- ticket shop ---
  'hotspot.profiles.list': {},
  'vpn.wireguard.apply': {
    interface: 'tn-wireguard',
    private_key: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=',
    preshared_key: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=',
    server_public_key: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=',
    endpoint_host: 'vpn.example.net',
    endpoint_port: 51820,
    address: '10.96.0.2/32',
    allowed_address: '10.96.0.0/12',
    keepalive_seconds: 25,
  },
  'vpn.sstp.apply': {
    interface: 'tn-sstp',
    connect_to: 'vpn.example.net',
    port: 443,
    user: 'tn-1',
    password: 'p4ssw0rd-long',
  },
  'vpn.probe': {
    protocol: 'WIREGUARD',
    interface: 'tn-wireguard',
    server_address: '10.96.0.1',
    router_address: '10.96.0.2',
  },
  'vpn.transport.remove': { protocol: 'SSTP', interface: 'tn-sstp' },
  'vpn.rescue.enable': { user: 'ticketnet' },
  'vpn.rescue.read': { user: 'ticketnet', seal_to: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=' },
  'router.login.set': { user: 'ticketnet', password: 's3cr3t', api_port: 8728 },
  'lan.scan': {},
  'equipment.pin': {
    device_id: '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b',
    lan_ip: '192.168.50.20',
    mac: 'AA:BB:CC:00:00:01',
    service_port: 80,
    dstnat_port: 20001,
    pin_lease: true,
    agent_only: true,
    probe_interval_seconds: 60,
  },
  'equipment.status': {
    devices: [{ device_id: '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b', lan_ip: '192.168.50.20', mac: null }],
  },
  'equipment.unpin': { device_id: '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b' },
  'router.services': {},
  'hotspot.active.usage': {},
  'bandwidth.apply': { cap: { limit_kbps: 10_000, essential_share: 0.25 }, classes: [], users: [] },
  'radius.disconnect': { packet: Buffer.alloc(20).toString('base64') },
  'hotspot.active.remove': { user: 'v1', address: '10.5.50.11' },
  'bandwidth.digest': {},
};

/** What the client route answers for each command: the reads run, every change is refused. */
const CLIENT_ROUTE: Record<CommandName, 202 | 403> = {
  'router.facts': 202,
  'router.ping': 202,
  'hotspot.users.export': 202,
  'hotspot.users.names': 202,
  'hotspot.users.count': 202,
  'hotspot.users.remove': 403,
  'hotspot.profiles.restore': 403,
  'hotspot.users.restore': 403,
  'backup.save': 202,
  'resellers.export': 202,
  'sales.export': 202,
  'router.script.apply': 403,
  'radius.status': 202,
  'hotspot.users.columns': 202,
  'hotspot.users.tally': 202,
  // --- ticket shop ---
  'hotspot.profiles.list': 202,
  'vpn.wireguard.apply': 403,
  'vpn.sstp.apply': 403,
  'vpn.probe': 202,
  'vpn.transport.remove': 403,
  'vpn.rescue.enable': 403,
  'vpn.rescue.read': 202,
  'router.login.set': 403,
  'lan.scan': 202,
  'equipment.pin': 403,
  'equipment.status': 202,
  'equipment.unpin': 403,
  'router.services': 202,
  'hotspot.active.usage': 202,
  'bandwidth.apply': 403,
  'radius.disconnect': 403,
  'hotspot.active.remove': 403,
  'bandwidth.digest': 202,
};

forEachDatabase('client command route: reads only', (database) => {
  let h: HubTest;
  beforeEach(async () => (h = await startHub(database)));
  afterEach(async () => h.t.close());

  const enqueue = (allocationId: string, body: unknown) =>
    h.t.request('POST', `/api/v1/clients/allocations/${allocationId}/commands`, {
      token: h.client.token,
      body,
    });
  const stored = (allocationId: string) =>
    h.t.db.db
      .selectFrom('agent_commands')
      .select(['id', 'name'])
      .where('allocation_id', '=', allocationId)
      .execute();

  it('runs every read of the catalogue and refuses every change with 403 COMMAND_NOT_ALLOWED', async () => {
    const agent = await h.enrolledAgent();
    agent.withholdResults = true;
    const allocationId = agent.allocationId!;
    for (const name of Object.keys(COMMANDS) as CommandName[]) {
      const expected = CLIENT_ROUTE[name];
      expect(COMMANDS[name].effect, name).to.equal(expected === 202 ? 'read' : 'change');
      const before = (await stored(allocationId)).length;
      const res = await enqueue(allocationId, { name, params: VALID_PARAMS[name] });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(expected);
      if (expected === 403) {
        expect(res.body).to.deep.equal({
          success: false,
          error: {
            code: 'COMMAND_NOT_ALLOWED',
            message: `${name} changes the router; it runs only through the module that guards it`,
          },
          details: { command: name },
        });
        expect(await stored(allocationId), name).to.have.length(before);
      } else {
        expect(res.body.data).to.include({ name, allocation_id: allocationId });
        expect(await stored(allocationId), name).to.have.length(before + 1);
      }
    }
    const reads = (Object.keys(CLIENT_ROUTE) as CommandName[]).filter((n) => CLIENT_ROUTE[n] === 202);
    await eventually(
      async () => agent.deliveries.map((d) => d.name),
      (names) => names.length === reads.length,
    );
    expect(agent.deliveries.map((d) => d.name)).to.deep.equal(reads);
  });

  it('refuses a change even with bad params or for an unknown allocation (403 before anything else)', async () => {
    const unknownAllocation = '00000000-0000-4000-8000-000000000000';
    for (const body of [
      { name: 'router.script.apply', params: { source: '' } },
      { name: 'hotspot.users.remove', params: {} },
    ]) {
      const res = await enqueue(unknownAllocation, body);
      expect(res.status, JSON.stringify(body)).to.equal(403);
      expect(res.body.error.code).to.equal('COMMAND_NOT_ALLOWED');
    }
    expect(await h.t.db.db.selectFrom('agent_commands').select('id').execute()).to.deep.equal([]);
  });

  it('still lets a module run a change through the runner', async () => {
    const agent = await h.enrolledAgent();
    const output = { count_before: 2, count_after: 1, requested: 1, absent: 0, spared: 0 };
    agent.execute = () => ({ status: 'DONE', output });
    const { runner } = h.t.controller.services;
    const outcome = await runner.run(
      { clientId: h.client.id, allocationId: agent.allocationId! },
      'hotspot.users.remove',
      { names: ['v1'] },
      5000,
    );
    expect(outcome).to.deep.equal({ kind: 'done', output });
    expect(agent.deliveries.map((d) => d.name)).to.deep.equal(['hotspot.users.remove']);
  });
});
