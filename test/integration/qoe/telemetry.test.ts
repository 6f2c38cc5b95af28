// POST /qoe/telemetry: the NAS's bridge token (each refusal records nothing), the client taken
// from the NAS, WAN counters in pairs, a replay stored once; then usage from the counters by the
// interval rules, read back through GET /qoe/usage and GET /qoe/status.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startQoeTest, type QoeTest } from './qoe-fixture.js';

const GB = 1e9;

forEachDatabase('qoe telemetry', (database) => {
  let t: QoeTest;
  beforeEach(async () => (t = await startQoeTest(database)));
  afterEach(async () => t?.t.close());

  const pointCount = async () =>
    Number(
      (
        await t.t.db.db
          .selectFrom('qoe_points')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('takes the bridge token only, refuses every other case without recording, stores a replay once', async () => {
    const a = await t.qoeSite('QOE-A');
    const b = await t.qoeSite('QOE-B');
    expect(a.bridgeToken).to.match(/^qbt_/);
    expect(a.bridgeToken).to.not.equal(b.bridgeToken);
    t.t.clock.set(new Date('2026-11-21T09:00:00Z'));
    const body = {
      nas_id: a.nasId,
      observed_at: '2026-11-21T08:59:00Z',
      rtt_ms: 600,
      wan_rx_bytes: 10,
      wan_tx_bytes: 5,
    };
    const refusals: [string | null, Record<string, unknown>, number, string][] = [
      [null, body, 401, 'QOE_BRIDGE_TOKEN_REQUIRED'],
      ['', body, 401, 'QOE_BRIDGE_TOKEN_REQUIRED'],
      ['qbt_wrong', body, 401, 'QOE_BRIDGE_TOKEN_INVALID'],
      [t.client.token, body, 401, 'QOE_BRIDGE_TOKEN_INVALID'],
      // B's token for A's NAS, and A's token for B's NAS.
      [b.bridgeToken, body, 403, 'QOE_NAS_MISMATCH'],
      [a.bridgeToken, { ...body, nas_id: b.nasId }, 403, 'QOE_NAS_MISMATCH'],
      [a.bridgeToken, { ...body, wan_tx_bytes: undefined }, 400, 'VALIDATION_ERROR'],
      [a.bridgeToken, { ...body, wan_rx_bytes: null }, 400, 'VALIDATION_ERROR'],
      [a.bridgeToken, { ...body, wan_rx_bytes: -1 }, 400, 'VALIDATION_ERROR'],
      [a.bridgeToken, { ...body, observed_at: 'yesterday' }, 400, 'VALIDATION_ERROR'],
      [a.bridgeToken, { ...body, observed_at: '2026-11-21T09:06:00Z' }, 400, 'VALIDATION_ERROR'],
      [a.bridgeToken, { ...body, packet_loss_pct: 101 }, 400, 'VALIDATION_ERROR'],
      [
        a.bridgeToken,
        { ...body, top_consumers: [{ username: 'x', ip: 'nope', rx_bps: 1 }] },
        400,
        'VALIDATION_ERROR',
      ],
    ];
    for (const [token, b2, status, code] of refusals) {
      const res = await t.send(token, b2);
      expect(res.status, `${code} ${JSON.stringify(res.body)}`).to.equal(status);
      expect(res.body.error.code).to.equal(code);
      expect(res.body.code).to.equal(code);
    }
    expect(await pointCount()).to.equal(0);
    expect((await t.get('/status')).body.nas).to.deep.equal([]);

    // A client_id in the body is ignored: the point is the token's NAS's client's.
    const other = await t.t.account('client');
    const first = await t.send(a.bridgeToken, {
      ...body,
      client_id: other.id,
      top_consumers: [{ username: 'ali', ip: '10.5.50.2', rx_bps: 1500 }],
    });
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.body).to.deep.include({ success: true, accepted: true });
    expect(first.body.event).to.deep.equal({
      id: first.body.event.id,
      observed_at: '2026-11-21T08:59:00.000Z',
    });
    const replay = await t.send(a.bridgeToken, { ...body, rtt_ms: 900 });
    expect(replay.status).to.equal(202);
    expect(replay.body.event).to.deep.equal(first.body.event);
    expect(await pointCount()).to.equal(1);
    const status = (await t.get('/status')).body;
    expect(status.nas).to.deep.equal([
      {
        nas_id: a.nasId,
        observed_at: '2026-11-21T08:59:00.000Z',
        rtt_ms: 600,
        jitter_ms: null,
        packet_loss_pct: null,
        tx_bps: null,
        rx_bps: null,
        wan_rx_bytes: 10,
        wan_tx_bytes: 5,
        top_consumers: [{ username: 'ali', ip: '10.5.50.2', rx_bps: 1500 }],
        rtt_baseline_ms: 600,
      },
    ]);
    expect(status.congested_nas).to.deep.equal([]);
    await t.license(other.id);
    expect((await t.get('/status', other.token)).body.nas).to.deep.equal([]);

    // Re-enrolment replaces the token: the old one is refused, the new one taken.
    const again = await t.enrolActive(a);
    expect(again.nas.id).to.equal(a.nasId);
    expect(
      (await t.send(a.bridgeToken, { ...body, observed_at: '2026-11-21T08:59:30Z' })).body.code,
    ).to.equal('QOE_BRIDGE_TOKEN_INVALID');
    const renewed = await t.send(again.bridge_token, { ...body, observed_at: '2026-11-21T08:59:30Z' });
    expect(renewed.status).to.equal(202);
    // A deleted NAS's token is refused.
    expect((await t.radius('DELETE', `/nas/${b.nasId}`)).status).to.equal(200);
    expect((await t.send(b.bridgeToken, { ...body, nas_id: b.nasId })).body.code).to.equal(
      'QOE_BRIDGE_TOKEN_INVALID',
    );
    expect(await pointCount()).to.equal(2);
  });

  it('counts usage from the counters by the interval rules, in GB, with congestion against the baseline', async () => {
    const a = await t.qoeSite('QOE-U');
    const at = (hhmmss: string) => `2026-11-22T${hhmmss}Z`;
    t.t.clock.set(new Date(at('11:00:00')));
    const steps: [string, number][] = [
      ['10:00:00', 100 * GB], // first point: nothing, the base
      ['10:00:14', 101 * GB], // 14 s: nothing, the new base
      ['10:00:29', 103 * GB], // 15 s: +2
      ['10:15:29', 107 * GB], // 15 min: +4
      ['10:31:30', 115 * GB], // 16 min 1 s: nothing
      ['10:32:30', 1 * GB], // reset (restart): nothing
      ['10:33:30', 17 * GB], // +16
      ['10:33:00', 99 * GB], // older than the last: nothing, not the base either
      ['10:34:30', 18 * GB], // +1
    ];
    for (const [hms, total] of steps) expect((await t.point(a, at(hms), total)).status).to.equal(202);
    const usage = (await t.get('/usage')).body;
    expect(usage).to.deep.equal({
      success: true,
      date: '2026-11-22',
      nas: [
        {
          nas_id: a.nasId,
          daily_gb: 23,
          last_two_hours_gb: 23,
          acceleration_pct: null,
          daily_warning: false,
          accelerating: false,
          congested: false,
        },
      ],
    });
    // The bandwidth programme reads the same store.
    const totals = await t.t.controller.services.usage.totals(t.client.id, a.allocationId, t.t.clock.now());
    expect(totals.octetsJour).to.equal(23 * GB);

    // Congestion: 900 ms on a 600 ms baseline (1.5x, +300 ms); the satellite's 600 ms is not.
    expect((await t.point(a, at('10:40:00'), 19 * GB, { rtt_ms: 899 })).status).to.equal(202);
    expect((await t.get('/status')).body.congested_nas).to.deep.equal([]);
    expect((await t.point(a, at('10:45:00'), 20 * GB, { rtt_ms: 900 })).status).to.equal(202);
    expect((await t.get('/status')).body.congested_nas).to.deep.equal([a.nasId]);
    expect((await t.get('/usage')).body.nas[0]).to.include({ congested: true, daily_gb: 25 });

    // Control routes: client token and an active RADIUS licence.
    expect((await t.t.request('GET', '/api/v1/radius/qoe/status')).status).to.equal(401);
    const { token } = await t.t.account('client');
    for (const path of ['/status', '/usage', '/preferences']) {
      const res = await t.get(path, token);
      expect(res.status, path).to.equal(403);
      expect(res.body.code).to.equal('RADIUS_LICENSE_INACTIVE');
    }
  });
});
