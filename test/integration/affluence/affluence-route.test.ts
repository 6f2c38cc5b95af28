import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RadiusAuthLogTable } from '../../../controller/radius/tables.js';
import { forEachDatabase } from '../../support/databases.js';
import { makeTickets, startHarness, type Harness } from '../radius/radius-harness.js';

const DAY = '2026-11-21';
const MAC_A = 'AA:BB:CC:00:00:0A';

forEachDatabase('GET /api/v1/radius/affluence', (database) => {
  let h: Harness;
  beforeEach(async () => (h = await startHarness(database)));
  afterEach(async () => h.close());

  const seed = (rows: Partial<RadiusAuthLogTable>[]) =>
    h.t.db.db
      .insertInto('radius_auth_log')
      .values(
        rows.map((r) => ({
          client_id: h.tenant.id,
          nas_id: h.nasEntry.nasId,
          username: 'code1',
          result: 'ACCEPT' as const,
          reason: null,
          calling_station_id: null,
          at: `${DAY}T12:00:00.000Z`,
          ...r,
        })),
      )
      .execute();
  const get = (query = '', token = h.tenant.token) =>
    h.t.request('GET', `/api/v1/radius/affluence${query}`, { token });
  const at = (hhmmss: string, day = DAY) => `${day}T${hhmmss}Z`;

  /** The day of the suite's fixture: three devices, a refusing device, a looping device, noise around. */
  async function seedDay() {
    await seed([
      { calling_station_id: MAC_A, at: at('08:15:00.000') },
      { calling_station_id: MAC_A, at: at('08:45:00.000') },
      { calling_station_id: MAC_A, at: at('18:05:00.000') },
      // The same MAC written in lower case is the same device.
      { calling_station_id: 'aa:bb:cc:00:00:0b', username: 'code2', at: at('18:10:00.000') },
      { calling_station_id: 'AA:BB:CC:00:00:0B', username: 'code2', at: at('18:20:00.000') },
      // No MAC: the username is the device.
      { calling_station_id: null, username: 'nomac', at: at('18:30:00.000') },
      { calling_station_id: '', username: 'nomac', at: at('18:40:00.000') },
      // Refusals late in the day land in hour 23, not in the next day.
      ...[1, 2, 3].map(() => ({
        calling_station_id: 'AA:BB:CC:00:00:0C',
        result: 'REJECT' as const,
        reason: 'BAD_PASSWORD',
        at: at('23:59:59.999'),
      })),
      // A device retrying 12 times in 6 minutes: a loop.
      ...Array.from({ length: 12 }, (_, i) => ({
        calling_station_id: 'AA:BB:CC:00:00:0D',
        username: 'stuck',
        result: 'REJECT' as const,
        reason: 'EXPIRED',
        at: new Date(Date.parse(at('12:00:00.000')) + i * 30_000).toISOString(),
      })),
      // Outside the day, and another tenant's: never counted.
      { calling_station_id: MAC_A, at: '2026-11-20T23:59:59.999Z' },
      { calling_station_id: MAC_A, at: '2026-11-22T00:00:00.000Z' },
      { client_id: (await h.t.account('client')).id, calling_station_id: MAC_A, at: at('18:00:00.000') },
    ]);
  }

  it('counts the day: connections, devices, refusals, hours in UTC, peak, ratio and loops', async () => {
    await seedDay();
    const res = await get(`?date=${DAY}`);
    expect(res.status).to.equal(200);
    const body = res.body;
    expect(body).to.deep.include({
      success: true,
      date: DAY,
      nas_id: null,
      disponible: true,
      connexions: 7,
      clients: 3,
      refus: 15,
      pic: { heure: 18, connexions: 5 },
      connexions_par_client: 2.33,
    });
    expect(body.par_heure).to.have.length(24);
    const nonZero = body.par_heure.filter(
      (p: { connexions: number; refus: number }) => p.connexions || p.refus,
    );
    expect(nonZero).to.deep.equal([
      { heure: 8, connexions: 2, refus: 0 },
      { heure: 12, connexions: 0, refus: 12 },
      { heure: 18, connexions: 5, refus: 0 },
      { heure: 23, connexions: 0, refus: 3 },
    ]);
    expect(body.boucles).to.deep.equal([
      {
        mac: 'AA:BB:CC:00:00:0D',
        username: 'stuck',
        tentatives: 12,
        acceptes: 0,
        refus: 12,
        premiere: at('12:00:00.000'),
        derniere: at('12:05:30.000'),
        motif: 'RAFALE',
        max_par_fenetre: 12,
        refus_consecutifs_max: 12,
      },
    ]);
  });

  it('defaults to today by the clock, and filters one NAS', async () => {
    await seedDay();
    const otherNas = randomUUID();
    await seed([
      { nas_id: otherNas, calling_station_id: 'AA:BB:CC:00:00:0E', at: at('10:00:00.000') },
      { nas_id: otherNas, calling_station_id: 'AA:BB:CC:00:00:0E', result: 'REJECT', at: at('10:01:00.000') },
    ]);
    const today = await get();
    expect(today.body).to.deep.include({ date: DAY, connexions: 8, clients: 4, refus: 16 });
    const one = await get(`?nas_id=${otherNas.toUpperCase()}`);
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.include({
      nas_id: otherNas,
      connexions: 1,
      clients: 1,
      refus: 1,
      pic: { heure: 10, connexions: 1 },
      boucles: [],
    });
  });

  it('answers a day without activity with zeros; disponible false without any data source', async () => {
    await seedDay();
    const quiet = await get('?date=2026-11-19');
    expect(quiet.status).to.equal(200);
    expect(quiet.body).to.deep.include({
      disponible: true,
      connexions: 0,
      clients: 0,
      refus: 0,
      pic: { heure: null, connexions: 0 },
      connexions_par_client: 0,
      boucles: [],
    });
    expect(
      quiet.body.par_heure.every((p: { connexions: number; refus: number }) => !p.connexions && !p.refus),
    ).to.equal(true);

    // A client that never had a router nor an authentication; it needs no RADIUS licence to read.
    const newcomer = await h.t.account('client');
    const none = await get(`?date=${DAY}`, newcomer.token);
    expect(none.status).to.equal(200);
    expect(none.body).to.deep.include({ success: true, disponible: false, connexions: 0 });
  });

  it('is disponible for a client with a router but no authentication yet', async () => {
    const newcomer = await h.t.account('client');
    const allocation = await h.t.request('POST', '/api/v1/clients/allocations', {
      token: newcomer.token,
      body: {},
    });
    const nasId = randomUUID();
    const now = h.t.clock.now().toISOString();
    await h.t.db.db
      .insertInto('nas')
      .values({
        id: nasId,
        client_id: newcomer.id,
        allocation_id: allocation.body.data.allocation.id,
        nasname: 'agent:x',
        shortname: 'r1',
        secret: 's',
        role: 'PRIMARY',
        status: 'ACTIVE',
        apply_mode: 'app_apply',
        router_serial: 'S1',
        model: null,
        created_at: now,
        updated_at: now,
        activated_at: now,
        verified_at: now,
        deleted_at: null,
      })
      .execute();
    expect((await get('', newcomer.token)).body.disponible).to.equal(true);
    expect((await get(`?nas_id=${nasId}`, newcomer.token)).body).to.deep.include({
      disponible: true,
      connexions: 0,
    });
  });

  it('counts what the RADIUS server logged', async () => {
    const [a, b] = await makeTickets(h, {}, 2);
    const { auth } = h.client();
    await auth.pap(a!, a!, [['Calling-Station-Id', MAC_A]]);
    await auth.pap(b!, b!, [['Calling-Station-Id', 'AA:BB:CC:00:00:0B']]);
    await auth.pap(a!, 'wrong', [['Calling-Station-Id', MAC_A]]);
    await h.t.controller.services.radius.flush();
    const res = await get();
    expect(res.body).to.deep.include({
      disponible: true,
      connexions: 2,
      clients: 2,
      refus: 1,
      pic: { heure: 8, connexions: 2 },
    });
  });

  it('refuses bad input with a clear error', async () => {
    await seedDay();
    const technician = await h.t.account('technician');
    const cases: [string, string | undefined, number, string][] = [
      ['?date=2026-02-30', undefined, 400, 'VALIDATION_ERROR'],
      ['?date=21-11-2026', undefined, 400, 'VALIDATION_ERROR'],
      ['?date=2026-11-21T00:00:00Z', undefined, 400, 'VALIDATION_ERROR'],
      ['?date=2026-11-21&date=2026-11-22', undefined, 400, 'VALIDATION_ERROR'],
      ['?nas_id=not-a-nas', undefined, 400, 'VALIDATION_ERROR'],
      // A NAS id the client never had: not found (another tenant's NAS answers the same).
      [`?nas_id=${randomUUID()}`, undefined, 404, 'NAS_NOT_FOUND'],
      ['', 'garbage-token', 401, 'UNAUTHENTICATED'],
      ['', technician.token, 403, 'FORBIDDEN'],
    ];
    for (const [query, token, status, code] of cases) {
      const res = await get(query, token ?? h.tenant.token);
      expect(res.status, query).to.equal(status);
      expect(res.body).to.deep.include({ success: false, code });
      expect(res.body.error.code).to.equal(code);
      if (status === 400) expect(res.body.details[0].field).to.match(/^(date|nas_id)/);
    }
    const anonymous = await h.t.request('GET', '/api/v1/radius/affluence');
    expect(anonymous.status).to.equal(401);
  });
});
