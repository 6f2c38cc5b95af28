import { expect } from 'chai';
import { pino } from 'pino';
import { forEachDatabase } from '../../support/databases.js';
import { startTestController, type TestController } from '../../support/test-controller.js';
import { Scheduler } from '../../../controller/jobs/scheduler.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import { ManualClock } from '../../../controller/core/clock.js';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachDatabase('scheduler and admin routes', (database) => {
  let t: TestController;
  afterEach(async () => t?.close());

  it('runs a due job once per due time and reschedules it', async () => {
    t = await startTestController(database);
    const clock = t.clock;
    const runs: string[] = [];
    const s = new Scheduler(t.db.db, clock, 'one', silent);
    s.register({
      name: 'EVERY_3_MIN',
      cadence: { everyMs: 180_000 },
      run: async (now) => runs.push(now.toISOString()),
    });
    await s.init();
    expect(await s.tick()).to.deep.equal([]);
    clock.advance(180_000);
    expect((await s.tick()).map((r) => r.status)).to.deep.equal(['OK']);
    expect(await s.tick()).to.deep.equal([]);
    clock.advance(180_000);
    await s.tick();
    expect(runs).to.have.length(2);
    const lease = (await s.list()).find((l) => l.name === 'EVERY_3_MIN');
    expect(lease).to.include({ name: 'EVERY_3_MIN', owner: null, runs: 2, last_status: 'OK' });
  });

  it('records a failed run and skips a disabled job', async () => {
    t = await startTestController(database);
    let enabled = false;
    const s = new Scheduler(t.db.db, t.clock, 'one', silent);
    s.register({
      name: 'FAILS',
      cadence: { everyMs: 1000 },
      run: async () => Promise.reject(new Error('boom')),
    });
    s.register({
      name: 'FLAGGED',
      cadence: { everyMs: 1000 },
      enabled: () => enabled,
      run: async () => 'ran',
    });
    await s.init();
    t.clock.advance(1000);
    const runs = await s.tick();
    expect(runs.map((r) => [r.name, r.status, r.error])).to.deep.equal([
      ['FAILS', 'FAILED', 'boom'],
      ['FLAGGED', 'SKIPPED', undefined],
    ]);
    enabled = true;
    t.clock.advance(1000);
    expect((await s.tick()).find((r) => r.name === 'FLAGGED')?.result).to.equal('ran');
    const fails = (await s.list()).find((l) => l.name === 'FAILS');
    expect(fails).to.include({ last_status: 'FAILED', last_error: 'boom', owner: null });
  });

  it('never runs one job on two instances sharing the database', async () => {
    t = await startTestController(database);
    const other = await t.db.openAnother();
    try {
      await migrateDatabase(other);
      const clockA = new ManualClock(t.clock.now());
      const clockB = new ManualClock(t.clock.now());
      let running = 0;
      let maxRunning = 0;
      let total = 0;
      const job = (owner: string) => ({
        name: 'SLOW',
        cadence: { everyMs: 60_000 },
        run: async () => {
          running++;
          total++;
          maxRunning = Math.max(maxRunning, running);
          await sleep(150);
          running--;
          return owner;
        },
      });
      const a = new Scheduler(t.db.db, clockA, 'instance-a', silent);
      const b = new Scheduler(other.db, clockB, 'instance-b', silent);
      a.register(job('a'));
      b.register(job('b'));
      await a.init();
      await b.init();
      clockA.advance(60_000);
      clockB.advance(60_000);
      const [ra, rb] = await Promise.all([a.tick(), b.tick()]);
      expect(ra.length + rb.length).to.equal(1);
      expect(total).to.equal(1);
      expect(maxRunning).to.equal(1);

      // Forced runs race too: one wins, the other is told the job is running.
      const results = await Promise.allSettled([a.runNow('SLOW'), b.runNow('SLOW')]);
      const codes = results.map((r) =>
        r.status === 'fulfilled' ? 'OK' : (r.reason as { code: string }).code,
      );
      expect(codes.sort()).to.deep.equal(['JOB_ALREADY_RUNNING', 'OK']);
      expect(maxRunning).to.equal(1);
    } finally {
      await other.close();
    }
  });

  it('runs a job through the admin route, and refuses unknown jobs and non-admins', async () => {
    t = await startTestController(database);
    let ran = 0;
    t.controller.services.scheduler.register({
      name: 'DEMO',
      cadence: { dailyAtUtc: '20:00' },
      run: async () => ++ran,
    });
    await t.controller.services.scheduler.init();
    const admin = await t.admin();
    const client = await t.account('client');
    const res = await t.request('POST', '/api/v1/admin/jobs/DEMO/run', { token: admin.token });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ name: 'DEMO', status: 'OK', result: 1 });
    expect(
      (await t.request('POST', '/api/v1/admin/jobs/NOPE/run', { token: admin.token })).body.error.code,
    ).to.equal('JOB_NOT_FOUND');
    expect((await t.request('POST', '/api/v1/admin/jobs/DEMO/run', { token: client.token })).status).to.equal(
      403,
    );
    expect((await t.request('POST', '/api/v1/admin/jobs/DEMO/run')).status).to.equal(401);
    expect(ran).to.equal(1);
  });

  it('sets the manual clock through the admin route, refusing bad dates', async () => {
    t = await startTestController(database);
    const admin = await t.admin();
    const res = await t.request('PUT', '/api/v1/admin/clock', {
      token: admin.token,
      body: { now: '2026-12-01T20:00:00Z' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data.now).to.equal('2026-12-01T20:00:00.000Z');
    expect(t.clock.now().toISOString()).to.equal('2026-12-01T20:00:00.000Z');
    const bad = await t.request('PUT', '/api/v1/admin/clock', {
      token: admin.token,
      body: { now: 'tomorrow' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.details[0].field).to.equal('now');
    expect(t.clock.now().toISOString()).to.equal('2026-12-01T20:00:00.000Z');
  });

  it('has neither test route unless enabled', async () => {
    t = await startTestController(database, { clock: 'system', jobRunRoute: false });
    // The test harness always injects a manual clock; build the system-clock case through a fresh controller.
    await t.close();
    const { createController } = await import('../../../controller/controller.js');
    const { testConfig } = await import('../../support/test-controller.js');
    const db = await database.open();
    const controller = await createController({
      config: testConfig({ clock: 'system', jobRunRoute: false }),
      logger: silent,
      database: db,
    });
    try {
      const paths = controller.api.routes.map((r) => r.spec.path);
      expect(paths).to.not.include('/api/v1/admin/clock');
      expect(paths).to.not.include('/api/v1/admin/jobs/:name/run');
    } finally {
      await controller.close();
      t = undefined as unknown as TestController;
    }
  });
});
