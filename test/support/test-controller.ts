// A controller for tests: manual clock, quiet logs, no quota, requests injected without a port.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'light-my-request';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../controller/config.js';
import { createController, type Controller } from '../../controller/controller.js';
import { ManualClock } from '../../controller/core/clock.js';
import type { TestDatabase, TestDbHandle } from './databases.js';
import { waitFor } from './wait-for.js';

export interface TestResponse {
  status: number;
  headers: Record<string, unknown>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  raw?: string;
}

export const START_TIME = new Date('2026-11-21T08:00:00.000Z');

export class TestController {
  constructor(
    readonly controller: Controller,
    readonly clock: ManualClock,
    readonly db: TestDbHandle,
  ) {}

  async request(method: string, url: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined = options.raw;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await inject(this.controller.handler, {
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: unknown = res.payload;
    try {
      body = JSON.parse(res.payload);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, headers: res.headers, body };
  }

  /**
   * Waits until this controller has recorded the allocation's link down, once its agent's socket
   * closed: no longer held here and DISCONNECTED in the database. The API's view is not enough: it
   * also says DISCONNECTED for a link whose last sign of life is old by the manual clock, before
   * the close is written.
   */
  async linkRecordedDown(allocationId: string): Promise<void> {
    await waitFor(
      async () =>
        !this.controller.services.hub.holds(allocationId) &&
        (
          await this.db.db
            .selectFrom('agent_links')
            .select('link_state')
            .where('allocation_id', '=', allocationId)
            .executeTakeFirst()
        )?.link_state === 'DISCONNECTED',
      { what: `the link of ${allocationId} recorded down` },
    );
  }

  /** Registers an account of a kind and returns its token and id. */
  async account(kind: 'client' | 'technician' | 'partner', email?: string) {
    const res = await this.request('POST', '/api/v1/auth/register', {
      body: {
        email: email ?? `${kind}-${Math.random().toString(36).slice(2)}@example.com`,
        password: 'passw0rd-ok',
        name: `A ${kind}`,
        kind,
      },
    });
    if (res.status !== 201) throw new Error(`register failed: ${JSON.stringify(res.body)}`);
    return {
      token: res.body.data.token as string,
      id: res.body.data.account.id as string,
      email: res.body.data.account.email as string,
    };
  }

  async admin() {
    const email = `admin-${Math.random().toString(36).slice(2)}@example.com`;
    const account = await this.controller.services.accounts.create({
      email,
      password: 'adm1n-pass',
      name: 'Admin',
      kind: 'admin',
    });
    const res = await this.request('POST', '/api/v1/auth/login', { body: { email, password: 'adm1n-pass' } });
    return { token: res.body.data.token as string, id: account.id };
  }

  async close(): Promise<void> {
    await this.controller.close();
  }
}

export function testConfig(overrides: Partial<Record<keyof Config, unknown>> = {}): Config {
  return loadConfig(
    {},
    {
      db: 'sqlite::memory:',
      dataDir: mkdtempSync(join(tmpdir(), 'tn-data-')),
      jwtSecret: 'test-secret-test-secret-test-secret-0123',
      apiQuota: 'off',
      authFailureQuota: 'off',
      moneyQuota: 'off',
      logLevel: 'silent',
      clock: 'manual',
      scheduler: false,
      jobRunRoute: true,
      port: 0,
      ...overrides,
    },
  );
}

export async function startTestController(
  database: TestDatabase,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<TestController> {
  const db = await database.open();
  const config = testConfig(overrides);
  const clock = new ManualClock(START_TIME);
  const controller = await createController({
    config,
    logger,
    clock,
    database: db,
  });
  return new TestController(controller, clock, db);
}
