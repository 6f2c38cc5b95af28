// Shared set-up of the QoE route tests: a controller, a licensed client, routers enrolled as NAS
// behind fake agents (each enrolment answers the NAS's bridge token), and a telemetry sender.
import type { TestDatabase } from '../../support/databases.js';
import type { TestResponse } from '../../support/test-controller.js';
import { startNasTest, type NasTest, type Site } from '../nas/nas-fixture.js';

export interface QoeSite extends Site {
  nasId: string;
  bridgeToken: string;
}

export interface QoeTest extends NasTest {
  qoeSite(serial: string): Promise<QoeSite>;
  /** POST /qoe/telemetry with the given token (none when null). */
  send(token: string | null, body: Record<string, unknown>): Promise<TestResponse>;
  /** A point of `site` at `at` with WAN counters (rx carries them all, tx 0). */
  point(site: QoeSite, at: string, total: number, extra?: Record<string, unknown>): Promise<TestResponse>;
  /** GET under /qoe with the client token. */
  get(path: string, token?: string): Promise<TestResponse>;
  /** The client's QOE_USAGE_ALERT notifications, oldest first. */
  alerts(): Promise<Record<string, unknown>[]>;
  /** Every command the site's agent received. */
  commandsOf(site: Site): string[];
}

export async function startQoeTest(database: TestDatabase): Promise<QoeTest> {
  // No heartbeat during a test: the clock moves by hours and links must not be judged on it.
  const t = await startNasTest(database, {}, { heartbeatMs: 3_600_000 });
  const send: QoeTest['send'] = (token, body) =>
    t.t.request('POST', '/api/v1/radius/qoe/telemetry', {
      body,
      ...(token !== null ? { headers: { 'x-vpn-bridge-token': token } } : {}),
    });
  return {
    ...t,
    send,
    async qoeSite(serial) {
      const site = await t.site(serial);
      const enrolled = await t.enrolActive(site);
      return { ...site, nasId: enrolled.nas.id, bridgeToken: enrolled.bridge_token };
    },
    point: (site, at, total, extra = {}) =>
      send(site.bridgeToken, {
        nas_id: site.nasId,
        observed_at: at,
        rtt_ms: 600,
        jitter_ms: 20,
        packet_loss_pct: 2,
        tx_bps: 1000,
        rx_bps: 2000,
        wan_rx_bytes: total,
        wan_tx_bytes: 0,
        top_consumers: [],
        ...extra,
      }),
    get: (path, token = t.client.token) => t.t.request('GET', `/api/v1/radius/qoe${path}`, { token }),
    async alerts() {
      const res = await t.t.request('GET', '/api/v1/notifications?limit=100', { token: t.client.token });
      return (res.body.data as Record<string, unknown>[])
        .filter((n) => n.type === 'QOE_USAGE_ALERT')
        .reverse();
    },
    commandsOf: (site) => site.agent.deliveries.map((d) => d.name),
  };
}
