// Shared set-up of the shop tests: the NAS fixture (a licensed client, routers as fake agents on
// real sockets) with the router's hotspot profiles answered from a list the test changes.
import { expect } from 'chai';
import type { Config } from '../../../controller/config.js';
import type { HotspotProfile } from '../../../protocol/index.js';
import type { TestDatabase } from '../../support/databases.js';
import type { Answer } from '../../support/fake-agent.js';
import type { TestResponse } from '../../support/test-controller.js';
import { startNasTest, type NasTest, type Site } from '../nas/nas-fixture.js';

export interface ShopTest extends NasTest {
  /** What every router answers to `hotspot.profiles.list` (null: the command fails). */
  routerProfiles: HotspotProfile[] | null;
  /** A request with the test client's token (or another). */
  api(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
  /** A router of the client whose agent answers the profiles from `routerProfiles`. */
  shopSite(serial: string, token?: string): Promise<Site>;
  readiness(token?: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  push(profiles: unknown[], token?: string): Promise<TestResponse>;
  runJob(): Promise<TestResponse>;
  /** A client account with no licence. */
  bareClient(): Promise<{ token: string; id: string }>;
  /** Another client, with the RADIUS licence. */
  licensedClient(): Promise<{ token: string; id: string }>;
}

export const JOB = 'SHOP_ROUTER_SYNC';

export async function startShopTest(
  database: TestDatabase,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Promise<ShopTest> {
  const n = await startNasTest(database, overrides);
  const s = n as ShopTest;
  s.routerProfiles = [
    { name: '1h', rate_limit: '2M/4M', shared_users: 1, session_timeout: 3600 },
    { name: '7d', rate_limit: '5M/10M' },
  ];
  s.api = (method, path, body, token = n.client.token, headers) =>
    n.t.request(method, path, {
      token,
      ...(body !== undefined ? { body } : {}),
      ...(headers ? { headers } : {}),
    });
  s.shopSite = async (serial, token) => {
    const site = await n.site(serial, token);
    site.agent.execute = (command): Answer => {
      if (command.name !== 'hotspot.profiles.list') return site.router.answer(command);
      return s.routerProfiles
        ? { status: 'DONE', output: { profiles: s.routerProfiles } }
        : { status: 'FAILED', fault: { code: 'ROUTER_TRAP', message: 'no such command', retryable: false } };
    };
    return site;
  };
  s.readiness = async (token) => {
    const res = await s.api('GET', '/api/v1/clients/store/ticketshop/readiness', undefined, token);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.success).to.equal(true);
    return res.body.data;
  };
  s.push = (profiles, token) =>
    s.api('POST', '/api/v1/clients/store/profiles/sync', { nas_id: null, profiles }, token);
  s.runJob = async () => {
    const admin = await n.t.admin();
    const res = await n.t.request('POST', `/api/v1/admin/jobs/${JOB}/run`, { token: admin.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res;
  };
  s.bareClient = () => n.t.account('client');
  s.licensedClient = async () => {
    const other = await n.t.account('client');
    await n.license(other.id);
    return other;
  };
  return s;
}

/** Sets a ticket-store profile's price (the derived price of a router-found entry). */
export async function priceProfile(s: ShopTest, name: string, price: number, token = s.client.token) {
  const res = await s.api('PUT', `/api/v1/radius/profiles/${encodeURIComponent(name)}`, { price }, token);
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}
