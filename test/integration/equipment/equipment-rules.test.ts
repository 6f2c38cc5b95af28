// Client equipment rules through a real controller and an enrolled fake agent (manual clock): the
// Suivi Pro quota enforced or not, the monitoring pushes over an outage, owner changes, the NAS
// registry disagreeing with the allocation, and bad input on every route.
import { expect } from 'chai';
import { newId } from '../../../controller/core/ids.js';
import { forEachDatabase, type TestDatabase } from '../../support/databases.js';
import type { FakeAgent } from '../../support/fake-agent.js';
import { eventually, startHub, type HubTest } from '../hub/hub-fixture.js';

const SERIAL = 'EQ00A1B2C3';
const SECOND_SERIAL = 'EQ00D4E5F6';
const BASE = '/api/v1/clients/topology';
const UNKNOWN_ID = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';

interface Fixture {
  h: HubTest;
  agent: FakeAgent;
  allocationId: string;
  /** What `equipment.status` reports for every device's probe. */
  probe: { status: 'up' | 'down' | 'unknown' };
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  grant(plan: string): Promise<void>;
}

async function fixture(database: TestDatabase, enforced: boolean): Promise<Fixture> {
  // a short heartbeat: after the manual clock jumps, the link's last_seen_at is refreshed at once
  const h = await startHub(database, { equipmentQuotaEnforced: enforced }, { heartbeatMs: 100 });
  const { allocation, enrolment } = await h.allocate();
  const { FakeAgent } = await import('../../support/fake-agent.js');
  const agent = new FakeAgent(h.agentUrl);
  await agent.enrol(enrolment.code, { serial: SERIAL, routeros_version: '7.19' });
  const probe = { status: 'up' as 'up' | 'down' | 'unknown' };
  agent.execute = (command) => {
    const params = command.params as { devices?: { device_id: string; lan_ip: string }[] };
    if (command.name === 'equipment.pin') {
      return {
        status: 'DONE',
        output: { lease_static: true, rule_added: true, src_address: '127.0.0.1', probe: true },
      };
    }
    if (command.name === 'equipment.status') {
      return {
        status: 'DONE',
        output: {
          devices: (params.devices ?? []).map((d) => ({
            device_id: d.device_id,
            rule: null,
            extra_rules: 0,
            lease: null,
            arp_mac: null,
            arp_ip_of_mac: null,
            probe: { status: probe.status, since: null, disabled: false },
          })),
        },
      };
    }
    return { status: 'DONE', output: { rules_removed: 1, probes_removed: 1 } };
  };
  await eventually(
    () => h.allocation(allocation.id),
    (a) => a.link_state === 'CONNECTED' && a.router.serial === SERIAL,
  );
  const admin = await h.t.admin();
  return {
    h,
    agent,
    allocationId: allocation.id,
    probe,
    api: (method, path, body) =>
      h.t.request(method, `${BASE}${path}`, {
        token: h.client.token,
        ...(body !== undefined ? { body } : {}),
      }),
    async grant(plan) {
      const res = await h.t.request('POST', '/api/v1/admin/licences', {
        token: admin.token,
        body: { client_id: h.client.id, plan_code: plan },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    },
  };
}

const device = (n: number, extra: Record<string, unknown> = {}) => ({
  router_serial: SERIAL,
  name: `AP ${n}`,
  device_type: 'AP',
  lan_ip: `192.168.50.${n}`,
  service_protocol: 'http',
  service_port: 80,
  mac_address: `24:A4:3C:00:00:${n.toString(16).padStart(2, '0')}`,
  pushNat: false,
  ...extra,
});

forEachDatabase('client equipment rules (fake agent, manual clock)', (database) => {
  let f: Fixture;
  afterEach(async () => {
    await f?.agent.link?.close();
    await f?.h.t.close();
  });

  it('quota not enforced: the block says what would apply, and the add passes', async () => {
    f = await fixture(database, false);
    const list = await f.api('GET', '/devices');
    expect(list.body.capabilities).to.deep.equal({
      can_add_devices: false,
      reason: 'SUIVI_PRO_REQUIRED',
      enforced: false,
      max_devices: null,
      devices_used: 0,
      devices_remaining: null,
    });
    expect((await f.api('POST', '/devices', device(1))).status).to.equal(201);
  });

  it('quota enforced: no plan 403, then the Essentiel cap of 10 answers 402 with the figures', async function () {
    this.timeout(30_000);
    f = await fixture(database, true);
    const refused = await f.api('POST', '/devices', device(1));
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('SUIVI_PRO_REQUIRED');
    expect((await f.api('GET', '/devices')).body.data).to.deep.equal([]);

    await f.grant('SUIVI_PRO_ESSENTIEL');
    for (let n = 1; n <= 10; n++) expect((await f.api('POST', '/devices', device(n))).status).to.equal(201);
    const full = await f.api('POST', '/devices', device(11));
    expect(full.status).to.equal(402);
    expect(full.body).to.deep.include({
      code: 'DEVICE_QUOTA_REACHED',
      details: { max_devices: 10, devices_used: 10 },
    });
    expect(full.body.error.code).to.equal('DEVICE_QUOTA_REACHED');
    const caps = (await f.api('GET', '/devices')).body.capabilities;
    expect(caps).to.deep.equal({
      can_add_devices: false,
      reason: 'DEVICE_QUOTA_REACHED',
      enforced: true,
      max_devices: 10,
      devices_used: 10,
      devices_remaining: 0,
    });
    expect((await f.api('GET', '/devices')).body.data).to.have.length(10);
  });

  it('quota enforced with Etendu: 30 devices (a sync over the cap is refused whole)', async function () {
    this.timeout(30_000);
    f = await fixture(database, true);
    await f.grant('SUIVI_PRO_ETENDU');
    const sync = await f.api('POST', '/sync', {
      router_serial: SERIAL,
      pushNat: false,
      devices: Array.from({ length: 29 }, (_, i) => strip(device(i + 1))),
    });
    expect(sync.status, JSON.stringify(sync.body)).to.equal(200);
    expect(sync.body.data.created).to.have.length(29);
    const twoMore = await f.api('POST', '/sync', {
      router_serial: SERIAL,
      devices: [device(30), device(31)].map(strip),
    });
    expect(twoMore.status).to.equal(402);
    const again = await f.api('POST', '/sync', {
      router_serial: SERIAL,
      pushNat: false,
      devices: [device(1), device(30)].map(strip),
    });
    expect(again.body.data.created).to.have.length(1);
    expect(again.body.data.skipped).to.deep.equal([{ lan_ip: '192.168.50.1', reason: 'ALREADY_ADDED' }]);
    const over = await f.api('POST', '/devices', device(31));
    expect(over.status).to.equal(402);
    expect(over.body.details).to.deep.equal({ max_devices: 30, devices_used: 30 });
  });

  it('quota enforced: concurrent adds and syncs over two routers never pass the cap together', async function () {
    this.timeout(30_000);
    f = await fixture(database, true);
    await f.grant('SUIVI_PRO_ESSENTIEL');
    // A second router of the same client: its dst-nat ports never collide with the first one's, so
    // nothing but the quota itself stands between two adds racing for the last places.
    const second = await f.h.allocate();
    const { FakeAgent } = await import('../../support/fake-agent.js');
    const other = new FakeAgent(f.h.agentUrl);
    await other.enrol(second.enrolment.code, { serial: SECOND_SERIAL, routeros_version: '7.19' });
    try {
      await eventually(
        () => f.h.allocation(second.allocation.id),
        (a) => a.link_state === 'CONNECTED' && a.router.serial === SECOND_SERIAL,
      );
      for (let n = 1; n <= 7; n++) expect((await f.api('POST', '/devices', device(n))).status).to.equal(201);
      // Three places left: six single adds and two syncs of two, on both routers, race for them.
      const on = (n: number) => ({ ...device(n), router_serial: n % 2 === 0 ? SERIAL : SECOND_SERIAL });
      const answers = await Promise.all([
        ...[8, 9, 10, 11, 12, 13].map((n) => f.api('POST', '/devices', on(n))),
        ...[
          [SERIAL, 14, 16],
          [SECOND_SERIAL, 15, 17],
        ].map(([serial, ...ns]) =>
          f.api('POST', '/sync', {
            router_serial: serial,
            pushNat: false,
            devices: (ns as number[]).map((n) => strip(device(n))),
          }),
        ),
      ]);
      const added = answers
        .filter((a) => a.status === 201 || a.status === 200)
        .reduce((sum, a) => sum + (a.status === 201 ? 1 : (a.body.data.created as unknown[]).length), 0);
      expect(added).to.equal(3);
      const refused = answers.filter((a) => a.status !== 201 && a.status !== 200);
      expect(refused.map((a) => a.status)).to.deep.equal(refused.map(() => 402));
      const list = await f.api('GET', '/devices');
      expect(list.body.data).to.have.length(10);
      expect(list.body.capabilities).to.include({ devices_used: 10, devices_remaining: 0 });
    } finally {
      await other.link?.close();
    }
  });

  it('pushes an outage once per step: down, 15 min, 2 h, nothing at 3 h, back with the duration', async function () {
    this.timeout(30_000);
    f = await fixture(database, false);
    const created = await f.api('POST', '/devices', device(5, { pushNat: true }));
    expect(created.body.data.status).to.equal('ACTIVE');
    const id = created.body.data.id;
    const admin = await f.h.t.admin();
    const round = async () => {
      await eventually(
        () => f.h.allocation(f.allocationId),
        (a) => a.link_state === 'CONNECTED',
      );
      const res = await f.h.t.request('POST', '/api/v1/admin/jobs/EQUIPMENT_MONITOR/run', {
        token: admin.token,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    };
    const pushes = async () => {
      const res = await f.h.t.request('GET', '/api/v1/notifications', { token: f.h.client.token });
      return (res.body.data as { data: Record<string, unknown> }[])
        .map((n) => n.data)
        .filter((d) => d.type === 'EQUIPMENT_MONITOR')
        .reverse();
    };
    await round();
    expect((await pushes()).length).to.equal(0);
    f.probe.status = 'down';
    await round();
    await round(); // a second reading of the same state sends nothing
    const minute = 60_000;
    f.h.t.clock.advance(15 * minute);
    await round();
    f.h.t.clock.advance(105 * minute);
    await round();
    f.h.t.clock.advance(60 * minute);
    await round(); // 3 h: nothing more
    const whileDown = await f.api('GET', '/devices');
    expect(whileDown.body.data[0]).to.include({ online: false });
    f.probe.status = 'up';
    f.h.t.clock.advance(minute);
    await round();
    const sent = await pushes();
    expect(sent.map((d) => d.step)).to.deep.equal(['down', '15m', '2h', 'back']);
    for (const d of sent) expect(d.device_id).to.equal(id);
    expect(sent[3]).to.include({ state: 'UP', down_seconds: 181 * 60 });

    // a link outage sends nothing and changes nothing
    f.probe.status = 'down';
    await f.agent.link?.close();
    await eventually(
      () => f.h.allocation(f.allocationId),
      (a) => a.link_state === 'DISCONNECTED',
    );
    await f.h.t.request('POST', '/api/v1/admin/jobs/EQUIPMENT_MONITOR/run', { token: admin.token });
    expect((await pushes()).length).to.equal(4);
    expect((await f.api('GET', '/devices')).body.data[0]).to.include({ online: true, status: 'ACTIVE' });
  });

  it('monitor off: online null, the probe removed on the router; on again: placed again', async () => {
    f = await fixture(database, false);
    const id = (await f.api('POST', '/devices', device(9, { pushNat: true }))).body.data.id;
    const pins = () =>
      f.agent.deliveries
        .filter((c) => c.name === 'equipment.pin')
        .map((c) => (c.params as { probe_interval_seconds: number | null }).probe_interval_seconds);
    expect(pins()).to.deep.equal([60]);
    const off = await f.api('POST', `/devices/${id}/monitor`, { enabled: false });
    expect(off.status).to.equal(200);
    expect(off.body.data).to.include({ monitored: false, online: null, status: 'ACTIVE' });
    const on = await f.api('POST', `/devices/${id}/monitor`, { enabled: true });
    expect(on.body.data).to.include({ monitored: true });
    expect(pins()).to.deep.equal([60, null, 60]);
  });

  it('owner changes: a revoked slot is ROUTER_CHANGED_OWNER, the router on a new slot ROUTER_REALLOCATED', async function () {
    this.timeout(20_000);
    f = await fixture(database, false);
    const id = (await f.api('POST', '/devices', device(7, { pushNat: true }))).body.data.id;
    const revoke = await f.h.t.request('POST', `/api/v1/clients/allocations/${f.allocationId}/revoke`, {
      token: f.h.client.token,
    });
    expect(revoke.status).to.equal(200);
    const v = await f.api('POST', `/devices/${id}/verify`);
    expect(v.body.data).to.include({ ok: false, reason: 'ROUTER_CHANGED_OWNER' });
    const listed = (await f.api('GET', '/devices')).body.data[0];
    expect(listed.hardware).to.deep.equal({
      anchored: false,
      needs_revalidation: true,
      reason: 'ROUTER_CHANGED_OWNER',
    });
    const r = await f.api('POST', `/devices/${id}/repair`);
    expect(r.body.data).to.include({ needs_human: true, reason_before: 'ROUTER_CHANGED_OWNER' });
    expect(r.body.data.note).to.be.a('string').and.not.equal('');

    const { enrolment } = await f.h.allocate();
    const { FakeAgent } = await import('../../support/fake-agent.js');
    const again = new FakeAgent(f.h.agentUrl);
    await again.enrol(enrolment.code, { serial: SERIAL, routeros_version: '7.19' });
    try {
      const moved = await eventually(
        () => f.api('POST', `/devices/${id}/verify`),
        (res) => res.body.data.reason === 'ROUTER_REALLOCATED',
      );
      expect(moved.body.data.checks.nat_rule_present).to.equal(null);
    } finally {
      await again.link?.close();
    }
  });

  it('ROUTER_NOT_OWNED when the NAS registry ties the serial to another slot', async () => {
    f = await fixture(database, false);
    const other = await f.h.allocate();
    const now = new Date().toISOString();
    await f.h.t.db.db
      .insertInto('nas')
      .values({
        id: newId(),
        client_id: f.h.client.id,
        allocation_id: other.allocation.id,
        nasname: `agent:${other.allocation.id}`,
        shortname: 'autre',
        secret: 'not-used-here',
        role: 'PRIMARY',
        status: 'ACTIVE',
        apply_mode: 'server',
        router_serial: SERIAL,
        model: null,
        created_at: now,
        updated_at: now,
        activated_at: now,
        verified_at: now,
        deleted_at: null,
      })
      .execute();
    const res = await f.api('POST', '/devices', device(1));
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('ROUTER_NOT_OWNED');
    expect(res.body.details).to.include({ reason: 'REGISTRY_MISMATCH' });
  });

  it('refuses bad input on every route and changes nothing', async () => {
    f = await fixture(database, false);
    const bad: [string, string, unknown?][] = [
      ['GET', '/scan'],
      ['GET', '/scan?router_serial='],
      ['POST', '/devices', { ...device(1), lan_ip: '192.168.50.300' }],
      ['POST', '/devices', { ...device(1), service_port: 0 }],
      ['POST', '/devices', { ...device(1), service_protocol: 'ftp' }],
      ['POST', '/devices', { ...device(1), mac_address: 'zz' }],
      ['POST', '/devices', { ...device(1), name: 'a\nb' }],
      ['POST', '/devices', { ...device(1), router_serial: undefined }],
      ['POST', '/sync', { router_serial: SERIAL, devices: [] }],
      ['POST', '/devices/not-a-uuid/verify'],
      ['POST', '/devices/not-a-uuid/repair'],
      ['DELETE', '/devices/not-a-uuid'],
      ['POST', `/devices/${UNKNOWN_ID}/monitor`, { enabled: 'yes' }],
    ];
    for (const [method, path, body] of bad) {
      const res = await f.api(method, path, body);
      expect(res.status, `${method} ${path}`).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
    for (const path of [`/devices/${UNKNOWN_ID}/verify`, `/devices/${UNKNOWN_ID}/repair`]) {
      expect((await f.api('POST', path)).status).to.equal(404);
    }
    expect((await f.api('GET', '/devices')).body.data).to.deep.equal([]);
    expect((await f.h.t.request('GET', `${BASE}/devices`)).status).to.equal(401);
  });
});

/** A device of a sync body: the same fields without the serial and pushNat. */
function strip(d: Record<string, unknown>) {
  const { router_serial: _s, pushNat: _p, ...rest } = d;
  return rest;
}
