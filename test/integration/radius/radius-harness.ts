// A controller with RADIUS listening on free loopback ports, a NAS directory the test fills,
// and one tenant with a RADIUS licence and a NAS at 127.0.0.1.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createController } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import { StaticNasDirectory, type NasEntry } from '../../../controller/radius/nas-directory.js';
import type { TestDatabase } from '../../support/databases.js';
import { RadiusTestClient } from '../../support/radius-client.js';
import { START_TIME, TestController, testConfig } from '../../support/test-controller.js';

export const SECRET = 'nas-secret-1';

export interface Harness {
  t: TestController;
  nas: StaticNasDirectory;
  tenant: { token: string; id: string };
  nasEntry: NasEntry;
  authPort: number;
  acctPort: number;
  client(options?: { localAddress?: string; secret?: string; timeoutMs?: number }): {
    auth: RadiusTestClient;
    acct: RadiusTestClient;
  };
  close(): Promise<void>;
}

export async function startHarness(
  database: TestDatabase,
  radius: { flushDelayMs?: number } = {},
): Promise<Harness> {
  const db = await database.open();
  const clock = new ManualClock(START_TIME);
  const nas = new StaticNasDirectory();
  const controller = await createController({
    config: testConfig({
      radiusEnabled: true,
      radiusHost: '127.0.0.1',
      radiusAuthPort: 0,
      radiusAcctPort: 0,
    }),
    logger: pino({ level: 'silent' }),
    clock,
    database: db,
    nasDirectory: nas,
    radius,
  });
  await controller.listen();
  const t = new TestController(controller, clock, db);
  const tenant = await t.account('client');
  await controller.services.licences.grant(tenant.id, 'RADIUS_ANNUAL', null);
  const nasEntry: NasEntry = { nasId: randomUUID(), clientId: tenant.id, secret: SECRET };
  nas.set('127.0.0.1', nasEntry);
  const { auth, acct } = controller.radiusAddresses!;
  const clients: RadiusTestClient[] = [];
  return {
    t,
    nas,
    tenant,
    nasEntry,
    authPort: auth.port,
    acctPort: acct.port,
    client(options = {}) {
      const common = {
        secret: options.secret ?? SECRET,
        localAddress: options.localAddress,
        timeoutMs: options.timeoutMs,
      };
      const pair = {
        auth: new RadiusTestClient({ ...common, port: auth.port }),
        acct: new RadiusTestClient({ ...common, port: acct.port }),
      };
      clients.push(pair.auth, pair.acct);
      return pair;
    },
    async close() {
      for (const c of clients) c.close();
      await t.close();
    },
  };
}

/** A profile and `n` tickets of it in the harness tenant; returns the codes. */
export async function makeTickets(
  h: Harness,
  profile: {
    name?: string;
    rate_limit?: string | null;
    data?: number | null;
    time?: number | null;
    validity?: number | null;
  },
  n = 1,
): Promise<string[]> {
  const { tickets, profiles } = h.t.controller.services;
  const name = profile.name ?? 'P1';
  await profiles.setProfile(h.tenant.id, name, {
    rate_limit: profile.rate_limit === undefined ? '2M/2M' : profile.rate_limit,
    data_limit_bytes: profile.data ?? null,
    time_limit_seconds: profile.time ?? null,
    validity_seconds: profile.validity ?? null,
  });
  const created = await tickets.createTickets(h.tenant.id, { profileId: name, quantity: n });
  return created.map((c) => c.code);
}
