// The packaged agent (`npm run package:agent`) runs with the memory limits of a router container:
// the bundle's launcher, the container image and the systemd unit all carry the flags of
// packaging/agent-node-flags.json, and the agent started that way enrols and links.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process.js';
import { ROUTER_PASSWORD, ROUTER_USER, Stack, START_MS } from './e2e-stack.js';

interface NodeFlags {
  nodeFlags: string[];
  nodeOptions: string[];
  env: Record<string, string>;
  glibcEnv: Record<string, string>;
}

const FLAGS = JSON.parse(readFileSync(join(ROOT, 'packaging/agent-node-flags.json'), 'utf8')) as NodeFlags;
const BUNDLE_DIR = join(ROOT, 'dist/agent-bundle');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The Environment= settings of a systemd unit, quoted words kept whole. */
function unitEnvironment(unit: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of unit.split('\n')) {
    const m = /^Environment=(.*)$/.exec(line.trim());
    for (const word of m?.[1]!.match(/"[^"]*"|\S+/g) ?? []) {
      const unquoted = word.replace(/^"(.*)"$/, '$1');
      const eq = unquoted.indexOf('=');
      env[unquoted.slice(0, eq)] = unquoted.slice(eq + 1);
    }
  }
  return env;
}

/** The command line and environment of a running process, as the kernel holds them. */
function processView(pid: number): { argv: string[]; env: Record<string, string> } {
  const split = (file: string) => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter(Boolean);
  return {
    argv: split('cmdline'),
    env: Object.fromEntries(
      split('environ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    ),
  };
}

describe('agent packaging: memory limits of a router container', function () {
  this.timeout(240_000);

  before(function () {
    const built = spawnSync(process.execPath, ['packaging/build-agent.js'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.status, `${built.stdout}${built.stderr}`).to.equal(0);
  });

  it('the launcher, the container entrypoint and the systemd unit set the same limits', () => {
    const launcher = readFileSync(join(BUNDLE_DIR, 'ticketnet-agent.sh'), 'utf8');
    const exec = launcher.split('\n').find((l) => l.startsWith('exec '))!;
    expect(exec).to.contain(` ${FLAGS.nodeFlags.join(' ')} `);
    expect(exec).to.match(/ticketnet-agent\.cjs" "\$@"$/);
    for (const [key, value] of Object.entries({ ...FLAGS.env, ...FLAGS.glibcEnv }))
      expect(launcher).to.contain(`: "\${${key}:=${value}}"\nexport ${key}`);

    const dockerfile = read('packaging/container/Dockerfile');
    const entrypoint = JSON.parse(/^ENTRYPOINT (.*)$/m.exec(dockerfile)![1]!) as string[];
    expect(entrypoint).to.deep.equal(['node', ...FLAGS.nodeFlags, '/opt/ticketnet/ticketnet-agent.cjs']);
    const dockerEnv = /^ENV (.*)$/m.exec(dockerfile)![1]!.split(' ');
    for (const [key, value] of Object.entries(FLAGS.env)) expect(dockerEnv).to.include(`${key}=${value}`);
    expect(dockerfile).not.to.match(/NODE_OPTIONS/);

    const unit = read('packaging/systemd/ticketnet-agent.service');
    expect(unitEnvironment(unit)).to.deep.equal({
      NODE_OPTIONS: FLAGS.nodeOptions.join(' '),
      ...FLAGS.env,
      ...FLAGS.glibcEnv,
    });
    expect(unit).to.match(/^MemoryMax=64M$/m);
  });

  // Started as shipped: the bundle through its launcher, the executable with the unit's environment
  // (Node refuses some V8 flags in NODE_OPTIONS: a wrong one would stop the agent at start).
  const shipped: {
    name: string;
    start: () => { cmd: string; args: string[]; env: Record<string, string> };
  }[] = [
    {
      name: 'bundle through ticketnet-agent.sh',
      start: () => ({ cmd: join(BUNDLE_DIR, 'ticketnet-agent.sh'), args: [], env: {} }),
    },
    {
      name: 'single executable with the systemd environment',
      start: () => ({
        cmd: join(BUNDLE_DIR, 'ticketnet-agent'),
        args: [],
        env: unitEnvironment(read('packaging/systemd/ticketnet-agent.service')),
      }),
    },
  ];
  for (const variant of shipped) {
    it(`${variant.name}: runs with the limits, enrols and links`, async () => {
      const stack = await Stack.create();
      let child: ChildProcess | undefined;
      try {
        const [, sim] = await Promise.all([
          stack.startController(),
          stack.startSim({ serial: '4C0FFEE0A9E1', version: '7.19' }),
        ]);
        const client = await stack.api.client();
        const { allocation, enrolment } = await stack.api.allocate(client, 'packaged');
        const { cmd, args, env } = variant.start();
        child = spawn(
          cmd,
          [
            ...args,
            '--state-dir',
            join(stack.dir, 'agent'),
            'run',
            '--controller',
            stack.controller!.url,
            '--code',
            enrolment.code,
            '--router-host',
            '127.0.0.1',
            '--router-port',
            String(sim.port),
            '--router-user',
            ROUTER_USER,
            '--radius-relay-auth-port',
            'off',
            '--radius-relay-acct-port',
            'off',
          ],
          { env: { ...process.env, ...env, TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD }, stdio: 'pipe' },
        );
        let output = '';
        child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
        await stack.api.waitForAllocation(
          client,
          allocation.id,
          (a) => a.link_state === 'CONNECTED',
          'CONNECTED',
          START_MS,
        );
        // What the running agent was given, read from the kernel rather than from our own spawn call.
        const view = processView(child.pid!);
        if (variant.name.startsWith('bundle')) {
          expect(view.argv.slice(1, 1 + FLAGS.nodeFlags.length)).to.deep.equal(FLAGS.nodeFlags);
          expect(view.env).to.include({ ...FLAGS.env, ...FLAGS.glibcEnv });
        } else {
          expect(view.env).to.include({ NODE_OPTIONS: FLAGS.nodeOptions.join(' '), ...FLAGS.env });
        }
        expect(output).not.to.match(/not allowed in NODE_OPTIONS|bad option/);
        const ping = await stack.api.run(client, allocation.id, 'router.ping');
        expect(ping.state, JSON.stringify(ping)).to.equal('DONE');
      } finally {
        child?.kill('SIGKILL');
        await stack.shutdown();
      }
    });
  }
});
