// What the log says about a failure: the code, the message, the route and the status, never a
// stack (a stack is written only when the logger runs at debug level).
import { expect } from 'chai';
import Router from '@koa/router';
import Koa from 'koa';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { inject } from 'light-my-request';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Db } from '../../../controller/db/database.js';
import { Api } from '../../../controller/http/api.js';
import { errorMiddleware } from '../../../controller/http/error-middleware.js';
import { healthRoutes } from '../../../controller/modules/health/routes.js';
import { forEachDatabase } from '../../support/databases.js';
import { captureLogs } from '../../support/log-capture.js';
import { startTestController } from '../../support/test-controller.js';
import { spawnDist } from '../../support/spawn-process.js';
import { startSite, type Site } from '../takeover/takeover-fixture.js';

const STACK_LINE = /\n\s+at |\\n\s+at /;

forEachDatabase('error logs', (database) => {
  let site: Site | undefined;
  afterEach(async () => {
    await site?.h.t.close();
    site = undefined;
  });

  it('logs a 502 from a router that is down with its code, route and status, and no stack', async () => {
    const logs = captureLogs('info');
    site = await startSite(database, logs.logger);
    site.answers.set('sales.export', () => ({
      status: 'FAILED',
      fault: { code: 'ROUTER_UNREACHABLE', message: 'router 192.0.2.1:8728 unreachable', retryable: true },
    }));
    const res = await site.h.t.request('POST', '/api/v1/radius/sales/import', {
      token: site.h.client.token,
      body: { allocation_id: site.allocationId },
    });
    expect(res.status).to.equal(502);
    expect(res.body.code).to.equal('ROUTER_COMMAND_FAILED');

    const failed = logs.records().filter((r) => r.msg === 'request failed');
    expect(failed).to.have.length(1);
    expect(failed[0]).to.deep.include({
      code: 'ROUTER_COMMAND_FAILED',
      status: 502,
      method: 'POST',
      route: '/api/v1/radius/sales/import',
    });
    expect((failed[0]!.error as { message: string }).message)
      .to.be.a('string')
      .and.not.equal('');
    expect(failed[0]).to.not.have.property('err');
    for (const line of logs.lines) {
      expect(line).to.not.match(STACK_LINE);
      expect(line).to.not.include('"stack"');
    }
  });

  it('writes the stack of an unexpected error only when the logger runs at debug level', async () => {
    for (const [level, stack] of [
      ['info', false],
      ['debug', true],
    ] as const) {
      const logs = captureLogs(level);
      const t = await startTestController(database, {}, logs.logger);
      try {
        t.controller.api.route(
          { method: 'get', path: '/api/v1/test/boom', summary: 'boom', tags: ['test'], auth: 'public' },
          async () => {
            throw new Error('disk on fire');
          },
        );
        expect((await t.request('GET', '/api/v1/test/boom')).status).to.equal(500);
        const failed = logs.records().find((r) => r.msg === 'request failed')!;
        expect(failed).to.deep.include({ code: 'INTERNAL_ERROR', status: 500, route: '/api/v1/test/boom' });
        expect(failed.error).to.deep.include({ type: 'Error', message: 'disk on fire' });
        expect(
          logs.lines.some((l) => STACK_LINE.test(l)),
          level,
        ).to.equal(stack);
      } finally {
        await t.close();
      }
    }
  });
});

// A database the health check cannot reach, one per dialect: the 503 says "unreachable", the log why.
const unreachable: [string, () => Db][] = [
  [
    'sqlite',
    () =>
      new Kysely({
        dialect: new SqliteDialect({ database: async () => new BetterSqlite3('/nonexistent-dir/tn/x.db') }),
      }),
  ],
  [
    'postgres',
    () =>
      new Kysely({
        dialect: new PostgresDialect({
          pool: new pg.Pool({
            connectionString: 'postgres://nobody@127.0.0.1:1/none',
            connectionTimeoutMillis: 2000,
          }),
        }),
      }),
  ],
];

describe('health check with an unreachable database', () => {
  for (const [name, open] of unreachable) {
    it(`answers 503 and logs the ${name} error`, async () => {
      const logs = captureLogs('info');
      const db = open();
      const router = new Router();
      const api = new Api(router, [], async () => undefined);
      healthRoutes(api, { db, logger: logs.logger, version: '0.0.0' });
      const app = new Koa();
      app.use(errorMiddleware(logs.logger));
      app.use(router.routes());
      try {
        const res = await inject(app.callback(), { method: 'GET', url: '/healthz' });
        expect(res.statusCode).to.equal(503);
        expect(JSON.parse(res.payload)).to.include({ status: 'degraded', database: 'unreachable' });
        const line = logs.records().find((r) => r.msg === 'health check: database unreachable');
        expect(line, logs.lines.join('')).to.not.equal(undefined);
        expect((line!.error as { message: string }).message)
          .to.be.a('string')
          .and.not.equal('');
        expect(logs.lines.join('')).to.not.match(STACK_LINE);
      } finally {
        await db.destroy().catch(() => undefined);
      }
    });
  }
});

describe('controller process that cannot start', function () {
  this.timeout(30_000);
  it('prints why in one line, without a stack', async () => {
    const p = spawnDist('dist/controller/main.js', [], {
      PORT: '0',
      TICKETNET_DB: 'postgres://nobody@127.0.0.1:1/none',
      TICKETNET_LOG_LEVEL: 'info',
    });
    expect(await p.exited).to.equal(1);
    expect(p.output()).to.match(/error: .*(ECONNREFUSED|connect)/);
    expect(p.output()).to.not.match(STACK_LINE);
  });
});
