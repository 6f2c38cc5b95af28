// `npm run bench:bandwidth`: N simulated routers (RouterOS 7.19 and 6.49 alternately), each with
// the real agent runtime and a programme whose schedule caps it today. Measured in one run:
//
//   floor      one `router.ping` per router, all at once (the round the pass is compared with),
//              after an unmeasured warm-up round, and again after the passes
//   full pass  the first reconciliation: every router gets its queues, lists, marks and rules
//   no change  the second pass: every router is read and found as it should be (writes nothing)
//
// Printed per step: wall time, agent commands, command payload bytes (params + output JSON as
// stored), bytes that crossed the agent links both ways (one counting TCP relay in front of the
// controller: framing, acks and heartbeats included), and the ratio to the floor.
//
//   node --import tsx scripts/bench-bandwidth.ts [--routers 1000] [--batch 25]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { RunningAgent } from '../agent/runtime/agent-runtime.js';
import { loadConfig } from '../controller/config.js';
import { createController } from '../controller/controller.js';
import { systemClock } from '../controller/core/clock.js';
import { startLoopbackAgent } from '../test/support/loopback-agent.js';
import { load } from './bench-support.js';
import { RouterSim } from '../test/routeros-sim/router-sim.js';

const { values: opt } = parseArgs({
  options: {
    routers: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '25' },
  },
});
const ROUTERS = Number(opt.routers);
const BATCH = Number(opt.batch);
const PASSWORD = 'bench-pass';

/** One relay in front of the controller for every agent: bytes per direction as they pass. */
async function countingRelay(targetPort: number) {
  let bytes = 0;
  const server = createServer((agent: Socket) => {
    const controller = connect(targetPort, '127.0.0.1');
    agent.on('data', (c: Buffer) => ((bytes += c.length), controller.write(c)));
    controller.on('data', (c: Buffer) => ((bytes += c.length), agent.write(c)));
    for (const [a, b] of [
      [agent, controller],
      [controller, agent],
    ] as const) {
      a.on('end', () => b.end());
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tn-bench-bw-'));
  const config = loadConfig(
    {},
    {
      db: `sqlite:${join(dataDir, 'bench.db')}`,
      dataDir,
      jwtSecret: 'bench-secret-bench-secret-bench-secret',
      apiQuota: 'off',
      authFailureQuota: 'off',
      moneyQuota: 'off',
      logLevel: 'silent',
      scheduler: false,
      port: 0,
    },
  );
  const controller = await createController({
    config,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
  });
  const { port } = await controller.listen();
  const relay = await countingRelay(port);
  const s = controller.services;
  const client = await s.accounts.create({
    email: 'bench@example.com',
    password: 'bench-pass-1',
    name: 'Bench',
    kind: 'client',
  });
  await s.licences.grant(client.id, 'RADIUS_ANNUAL', null);
  await s.licences.grant(client.id, 'MONITORING_MONTHLY', null);

  const sims: RouterSim[] = [];
  const agents: RunningAgent[] = [];
  const allocations: string[] = [];
  const started = performance.now();
  for (let i = 0; i < ROUTERS; i += BATCH) {
    await Promise.all(
      Array.from({ length: Math.min(BATCH, ROUTERS - i) }, async (_, j) => {
        const n = i + j;
        const serial = `BE${n.toString(16).toUpperCase().padStart(8, '0')}`;
        const sim = new RouterSim({ serial, version: n % 2 === 0 ? '7.19' : '6.49.10', password: PASSWORD });
        await sim.start();
        sims.push(sim);
        const { allocation, enrolment } = await s.allocations.create(client.id, {});
        const agent = await startLoopbackAgent({
          stateDir: mkdtempSync(join(dataDir, 'agent-')),
          controllerUrl: `http://127.0.0.1:${relay.port}`,
          enrolCode: enrolment.code,
          router: { port: sim.port, password: PASSWORD },
        });
        agents.push(agent);
        allocations.push(allocation.id);
        // A router that never links stops the run with its serial instead of waiting for ever.
        const giveUp = performance.now() + 120_000;
        for (;;) {
          const a = await s.allocations.get(client.id, allocation.id);
          if (a.link_state === 'CONNECTED' && a.router.serial === serial) break;
          if (performance.now() > giveUp)
            throw new Error(
              `router ${serial} not linked after 120 s (link ${a.link_state}, serial ${a.router.serial})`,
            );
          await new Promise((r) => setTimeout(r, 50));
        }
        const enrolled = await s.nas.enrol(client.id, { routerSerial: serial, applyMode: 'app_apply' });
        await s.bandwidth.put(client.id, client.id, {
          nas_id: enrolled.nas.id,
          limit_mbps: 10,
          essential_classes: ['dns', 'whatsapp'],
          mode: 'SCHEDULED',
          schedule_weekdays: [0, 1, 2, 3, 4, 5, 6],
        });
      }),
    );
  }
  console.log(
    `set-up: ${ROUTERS} routers with agents and programmes in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const commandsSince = async (since: string) => {
    const rows = await controller.database.db
      .selectFrom('agent_commands')
      .select(['params', 'output'])
      .where('created_at', '>=', since)
      .execute();
    return {
      commands: rows.length,
      payload: rows.reduce((sum, r) => sum + r.params.length + (r.output?.length ?? 0), 0),
    };
  };
  const measure = async (label: string, work: () => Promise<unknown>) => {
    const since = new Date().toISOString();
    const bytes0 = relay.bytes();
    const t0 = performance.now();
    const result = await work();
    const ms = performance.now() - t0;
    const c = await commandsSince(since);
    return { label, ms, ...c, link: relay.bytes() - bytes0, result };
  };

  // One unmeasured round first: each agent opens its RouterOS connection on its first command, which
  // neither the floor nor a pass should pay.
  await Promise.all(
    allocations.map((id) =>
      s.runner.run({ clientId: client.id, allocationId: id }, 'router.ping', {}, 60_000),
    ),
  );
  const floor = await measure('floor: router.ping x N', () =>
    Promise.all(
      allocations.map((id) =>
        s.runner.run({ clientId: client.id, allocationId: id }, 'router.ping', {}, 60_000),
      ),
    ),
  );
  const loadBefore = load();
  const full = await measure('full pass', () => s.bandwidth.reconcile(ROUTERS));
  const still = await measure('no-change pass', () => s.bandwidth.reconcile(ROUTERS));
  // The floor again after the passes: the ratio is judged against the mean of the two rounds, so a
  // machine whose load moved during the run does not favour one side.
  const floorAfter = await measure('floor again', () =>
    Promise.all(
      allocations.map((id) =>
        s.runner.run({ clientId: client.id, allocationId: id }, 'router.ping', {}, 60_000),
      ),
    ),
  );

  const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `\n${'step'.padEnd(26)}${'wall'.padStart(10)}${'x floor'.padStart(9)}${'commands'.padStart(10)}${'payload'.padStart(12)}${'link'.padStart(12)}`,
  );
  const floorMs = (floor.ms + floorAfter.ms) / 2;
  for (const m of [floor, full, still, floorAfter]) {
    console.log(
      `${m.label.padEnd(26)}${`${(m.ms / 1000).toFixed(2)} s`.padStart(10)}${(m.ms / floorMs).toFixed(2).padStart(9)}${String(m.commands).padStart(10)}${kb(m.payload).padStart(12)}${kb(m.link).padStart(12)}`,
    );
  }
  console.log('\nfull pass counters:', JSON.stringify(full.result));
  console.log('no-change pass counters:', JSON.stringify(still.result));
  const pings = (floor.result as { kind: string }[]).filter((r) => r.kind === 'done').length;
  console.log(`pings answered: ${pings}/${ROUTERS}`);
  console.log(
    `no-change pass / floor: ${(still.ms / floorMs).toFixed(2)} (mean of the two rounds); ${(still.ms / floor.ms).toFixed(2)} (first round); ${(still.ms / floorAfter.ms).toFixed(2)} (second round)`,
  );
  console.log(`load average (1, 5, 15 min): before the passes ${loadBefore}, after ${load()}`);
  console.log(
    `goals: full pass under 60 s: ${full.ms < 60_000 ? 'met' : 'NOT met'}; no-change pass writes nothing: ${(still.result as { poses: number }).poses === 0 ? 'met' : 'NOT met'}; no-change ≤ 2x floor: ${still.ms <= 2 * floorMs ? 'met' : 'NOT met'}`,
  );

  for (const a of agents) await a.stop().catch(() => undefined);
  for (const sim of sims) await sim.stop().catch(() => undefined);
  relay.close();
  await controller.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
