// The technician's CLI, run as a real process through tsx (as `ticketnet-agent` would run).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { publicKeyFingerprint } from '../../../protocol/index.js';
import { FakeHub } from '../../support/fake-hub.js';
import { spawnTs } from '../../support/spawn-process.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { afterTest, cleanUp, SIM_PASSWORD, startSim, tempStateDir, waitUntil } from './agent-harness.js';

interface CliRun {
  code: number | null;
  output: string;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawnTs('agent/cli.ts', args, env);
  const code = await child.exited;
  return { code, output: child.output() };
}

function routerArgs(sim: RouterSim | undefined): string[] {
  return ['--router-host', '127.0.0.1', '--router-port', String(sim?.port ?? 1), '--router-timeout', '3000'];
}

const routerEnv = { TICKETNET_ROUTER_PASSWORD: SIM_PASSWORD, TICKETNET_AGENT_STATE_DIR: '' };

describe('ticketnet-agent CLI', function () {
  this.timeout(30_000);
  let hub: FakeHub;
  let sim: RouterSim;

  beforeEach(async () => {
    hub = await new FakeHub().start();
    afterTest(() => hub.stop());
    sim = await startSim();
  });
  afterEach(cleanUp);

  it('facts: prints the router facts (exit 0), or why it cannot (exit 1)', async () => {
    const ok = await cli(['facts', '--json', ...routerArgs(sim)], routerEnv);
    expect(ok.code, ok.output).to.equal(0);
    expect(JSON.parse(ok.output)).to.include({ serial: 'A1B2C3D4E5F6', routeros_version: '7.19' });

    const down = await cli(['facts', ...routerArgs(undefined)], routerEnv);
    expect(down.code).to.equal(1);
    expect(down.output).to.match(/ROUTER_UNREACHABLE/);

    const wrongPassword = await cli(['facts', ...routerArgs(sim)], {
      ...routerEnv,
      TICKETNET_ROUTER_PASSWORD: 'nope',
    });
    expect(wrongPassword.code).to.equal(1);
    expect(wrongPassword.output).to.match(/ROUTER_AUTH_FAILED/);
  });

  it('status: exit 1 until enrolled; enrol pins the key; then status exit 0 with the fingerprint', async () => {
    const stateDir = await tempStateDir();
    const before = await cli(['status', '--state-dir', stateDir, ...routerArgs(sim)], routerEnv);
    expect(before.code).to.equal(1);
    expect(before.output).to.match(/not enrolled/);

    const enrol = await cli(
      [
        'enrol',
        '--state-dir',
        stateDir,
        '--controller',
        hub.url,
        '--code',
        hub.issueCode(),
        ...routerArgs(sim),
      ],
      routerEnv,
    );
    expect(enrol.code, enrol.output).to.equal(0);
    expect(enrol.output).to.match(/Enrolled with/);
    expect(hub.enrolments[0]?.facts?.serial).to.equal('A1B2C3D4E5F6');

    const after = await cli(['status', '--json', '--state-dir', stateDir, ...routerArgs(sim)], routerEnv);
    expect(after.code, after.output).to.equal(0);
    const status = JSON.parse(after.output);
    expect(status).to.include({ enrolled: true, outbox_reports: 0, journal_commands: 0 });
    expect(status.controller_key_fingerprint).to.equal(publicKeyFingerprint(hub.keyPair.publicKey));
    expect(status.router).to.include({ reachable: true, routeros_version: '7.19' });
    expect(status.link).to.deep.equal({ running: false });

    const routerDown = await cli(['status', '--state-dir', stateDir, ...routerArgs(undefined)], routerEnv);
    expect(routerDown.code).to.equal(1);
    expect(routerDown.output).to.match(/UNREACHABLE/);
  });

  it('enrol: exit 1 with the controller code for a bad code, and when already enrolled', async () => {
    const stateDir = await tempStateDir();
    const bad = await cli(
      ['enrol', '--state-dir', stateDir, '--controller', hub.url, '--code', 'WRONG-CODE', ...routerArgs(sim)],
      routerEnv,
    );
    expect(bad.code).to.equal(1);
    expect(bad.output).to.match(/ENROL_CODE_INVALID/);

    const args = ['enrol', '--state-dir', stateDir, '--controller', hub.url, ...routerArgs(sim)];
    expect((await cli([...args, '--code', hub.issueCode()], routerEnv)).code).to.equal(0);
    const twice = await cli([...args, '--code', hub.issueCode()], routerEnv);
    expect(twice.code).to.equal(1);
    expect(twice.output).to.match(/Already enrolled/);
    expect((await cli([...args, '--code', hub.issueCode(), '--force'], routerEnv)).code).to.equal(0);
    expect(hub.agents.size).to.equal(2);
  });

  it('backup: writes the file and prints its size and sha256', async () => {
    const dir = await tempStateDir();
    const out = join(dir, 'site.backup');
    const run = await cli(['backup', '--out', out, ...routerArgs(sim)], routerEnv);
    expect(run.code, run.output).to.equal(0);
    const bytes = await readFile(out);
    expect(run.output).to.include(`size    ${bytes.length} bytes`);
    expect(run.output).to.include(`sha256  ${createHash('sha256').update(bytes).digest('hex')}`);
  });

  it('run: connects, reports facts, and stops cleanly on SIGTERM (exit 0)', async () => {
    const stateDir = await tempStateDir();
    const child = spawnTs(
      'agent/cli.ts',
      [
        'run',
        '--state-dir',
        stateDir,
        '--controller',
        hub.url,
        '--code',
        hub.issueCode(),
        ...routerArgs(sim),
      ],
      routerEnv,
    );
    afterTest(() => child.stop('SIGKILL'));
    await waitUntil(() => [...hub.reports.values()].some((r) => r.kind === 'facts'), 15_000, 'facts report');
    const status = await cli(['status', '--json', '--state-dir', stateDir, ...routerArgs(sim)], routerEnv);
    expect(JSON.parse(status.output).link).to.include({ running: true, state: 'ready' });
    expect(await child.stop('SIGTERM')).to.equal(0);
    expect(child.output()).to.match(/agent stopped/);
  });

  it('run --telemetry-interval: telemetry at that period, each report logged with its id', async () => {
    const stateDir = await tempStateDir();
    const child = spawnTs(
      'agent/cli.ts',
      [
        'run',
        '--state-dir',
        stateDir,
        '--controller',
        hub.url,
        '--code',
        hub.issueCode(),
        '--telemetry-interval',
        '1',
        ...routerArgs(sim),
      ],
      routerEnv,
    );
    afterTest(() => child.stop('SIGKILL'));
    const telemetry = () => [...hub.reports.values()].filter((r) => r.kind === 'telemetry');
    // The default period is 5 minutes: two reports within seconds come from the option.
    await waitUntil(() => telemetry().length >= 2, 15_000, 'two telemetry reports');
    const stored = child
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"report stored"'))
      .map((l) => {
        const record = JSON.parse(l) as { kind: string; id: string };
        return `${record.kind} ${record.id}`;
      });
    for (const report of telemetry()) expect(stored).to.include(`telemetry ${report.id}`);
    expect(await child.stop('SIGTERM')).to.equal(0);
  });

  it('usage errors exit 2; run without enrolment exits 2 with a hint', async () => {
    const zero = await cli(['run', '--telemetry-interval', '0'], routerEnv);
    expect(zero.code).to.equal(2);
    expect(zero.output).to.match(/--telemetry-interval must be/);
    expect((await cli(['frobnicate'])).code).to.equal(2);
    expect((await cli(['facts', '--router-port', 'eighty'], routerEnv)).code).to.equal(2);
    const stateDir = await tempStateDir();
    const run = await cli(['run', '--state-dir', stateDir], {
      ...routerEnv,
      TICKETNET_CONTROLLER_URL: '',
      TICKETNET_ENROL_CODE: '',
    });
    expect(run.code).to.equal(2);
    expect(run.output).to.match(/Not enrolled/);
  });
});
