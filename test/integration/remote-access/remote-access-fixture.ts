// A controller with a fake {vpn_host} end (and a log capture), for the remote-access routes.
import { pino } from 'pino';
import type { Config } from '../../../controller/config.js';
import { createController } from '../../../controller/controller.js';
import { ManualClock, systemClock, type Clock } from '../../../controller/core/clock.js';
import type { TestDatabase } from '../../support/databases.js';
import { FakeVpnHost } from '../../support/fake-vpn-host.js';
import { START_TIME, TestController, testConfig, type TestResponse } from '../../support/test-controller.js';

export interface RemoteAccessTest {
  t: TestController;
  vpn: FakeVpnHost;
  client: { token: string; id: string };
  other: { token: string; id: string };
  /** Every log line the controller wrote, as JSON text. */
  logs: string[];
  baseUrl: string;
  resolve(body: unknown, token?: string): Promise<TestResponse>;
  probe(body: unknown, token?: string): Promise<TestResponse>;
  close(): Promise<void>;
}

export async function startRemoteAccess(
  database: TestDatabase,
  o: { clock?: Clock; config?: Partial<Record<keyof Config, unknown>>; listen?: boolean } = {},
): Promise<RemoteAccessTest> {
  const db = await database.open();
  const clock = o.clock ?? new ManualClock(START_TIME);
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  const vpn = new FakeVpnHost(() => clock.now());
  const controller = await createController({
    config: testConfig({
      clock: clock === systemClock ? 'system' : 'manual',
      logLevel: 'debug',
      ...o.config,
    }),
    logger,
    clock,
    database: db,
    remoteAccess: { vpnHost: vpn, probe: { commandWaitMs: 2000, dataPlaneWaitMs: 1000, pollMs: 50 } },
  });
  const t = new TestController(
    controller,
    (clock instanceof ManualClock ? clock : undefined) as ManualClock,
    db,
  );
  let baseUrl = '';
  if (o.listen) baseUrl = `http://127.0.0.1:${(await controller.listen()).port}`;
  const client = await t.account('client');
  const other = await t.account('client');
  const post =
    (path: string) =>
    (body: unknown, token = client.token) =>
      t.request('POST', `/api/v1/clients/remote-access/${path}`, { token, body });
  return {
    t,
    vpn,
    client,
    other,
    logs,
    baseUrl,
    resolve: post('resolve'),
    probe: post('management-probe'),
    close: () => t.close(),
  };
}
