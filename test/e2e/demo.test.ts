// `npm run demo`: it must come up, print what it promises, work as printed, and leave nothing behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process.js';
import { START_MS, TEST_MS, waitUntil } from './e2e-stack.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

interface Demo {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startDemo(args: string[]): Demo {
  // Its own process group, so that Ctrl-C can be sent the way a terminal sends it (to the whole
  // group) and a failed test can end the demo with everything it started.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** What the demo printed, taken apart. */
function parse(output: string) {
  const field = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`${re} not in the demo's output:\n${output}`);
    return m[1]!;
  };
  const allocations = [
    ...output.matchAll(new RegExp(`^  (${UUID})  (.+?)  (CONNECTED|DISCONNECTED)  `, 'gm')),
  ];
  // The curl lines, ready to replay with fetch: method, URL, body.
  const curls = [
    ...output.matchAll(
      /^ {2}curl -s (?:-X (\w+) )?(\S+) -H "authorization: Bearer \$(\w+)"(?: .* -d '(.+)')?$/gm,
    ),
  ];
  return {
    dir: field(/Starting the ticketnet demo in (\S+) /),
    url: field(/^Controller\s+(http:\/\/127\.0\.0\.1:\d+)/m),
    email: field(/^ {2}e-mail\s+(\S+)/m),
    password: field(/^ {2}password\s+(\S+)/m),
    token: field(/^ {2}export TOKEN=(\S+)/m),
    allocations: allocations.map((m) => ({ id: m[1]!, label: m[2]!, state: m[3]! })),
    curls: curls.map((m) => ({
      method: m[1] ?? 'GET',
      path: m[2]!.replace('$TN', ''),
      tokenVar: m[3]!,
      body: m[4],
    })),
  };
}

/**
 * True while a process of the group (the demo and what it started) is alive. Zombies do not
 * count: an exited esbuild helper of tsx may wait a moment to be reaped by whoever inherited it.
 */
function groupAlive(pgid: number): boolean {
  if (!existsSync('/proc/self/stat')) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so parse after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`);
    return true;
  } catch {
    return false;
  }
}

describe('e2e: npm run demo', function () {
  this.timeout(TEST_MS);
  let demo: Demo | undefined;

  afterEach(async function () {
    if (!demo) return;
    if (this.currentTest?.state === 'failed') console.log(demo.output());
    // The demo's group: the demo and every process it started (none of them is detached).
    if (groupAlive(demo.child.pid!)) process.kill(-demo.child.pid!, 'SIGKILL');
    await demo.exited;
    demo = undefined;
  });

  it('--exit-after-ready: prints the URL, the login, both CONNECTED allocations and the curls, then cleans up', async () => {
    demo = startDemo(['--exit-after-ready']);
    expect(await demo.exited, demo.output()).to.equal(0);
    const out = demo.output();
    const printed = parse(out);

    expect(out).to.match(/ticketnet demo is ready/);
    expect(printed.email).to.equal('demo@ticketnet.local');
    expect(printed.password).to.match(/\S{8,}/);
    expect(printed.token).to.match(JWT);
    expect(out).to.match(/licence\s+RADIUS_ANNUAL until \d{4}-\d\d-\d\dT/);
    expect(printed.allocations).to.have.length(2);
    for (const a of printed.allocations) expect(a.state).to.equal('CONNECTED');
    expect(out).to.match(/serial C4AD34E6A649 .*\n.*RouterOS 6\.49 {2}architecture mipsbe/);
    expect(out).to.match(/serial 48A98A07B719 .*\n.*RouterOS 7\.19 {2}architecture arm64/);

    const paths = printed.curls.map((c) => `${c.method} ${c.path}`);
    expect(paths).to.include('GET /api/v1/clients/allocations');
    expect(printed.curls.filter((c) => c.body?.includes('"router.facts"'))).to.have.length(1);
    expect(printed.curls.filter((c) => c.body?.includes('"backup.save"'))).to.have.length(1);
    expect(
      paths.some((p) => new RegExp(`^GET /api/v1/clients/allocations/${UUID}/commands/${UUID}$`).test(p)),
    ).to.be.true;

    // Nothing left behind: no temp dir, no controller.
    expect(out).to.match(/Stopped every process of the demo/);
    expect(existsSync(printed.dir), printed.dir).to.equal(false);
    expect(await answers(printed.url)).to.equal(false);
    expect(groupAlive(demo.child.pid!), 'a process of the demo is still running').to.equal(false);
  });

  it('stays up until Ctrl-C, and its curls work as printed', async () => {
    const started = startDemo([]);
    demo = started;
    await waitUntil(() => /Press Ctrl-C/.test(started.output()), START_MS * 2, 'the demo to be ready');
    const printed = parse(started.output());
    const tokens: Record<string, string> = {
      TOKEN: printed.token,
      ADMIN_TOKEN: /^ {2}export ADMIN_TOKEN=(\S+)/m.exec(started.output())![1]!,
    };

    // Every printed curl, replayed as printed; queued commands must then finish DONE.
    for (const curl of printed.curls) {
      const res = await fetch(`${printed.url}${curl.path}`, {
        method: curl.method,
        headers: {
          authorization: `Bearer ${tokens[curl.tokenVar]}`,
          ...(curl.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(curl.body ? { body: curl.body } : {}),
      });
      const what = `${curl.method} ${curl.path}`;
      expect(res.status, what).to.be.oneOf([200, 202]);
      const { data } = (await res.json()) as { data: { id?: string; state?: string } };
      if (res.status !== 202) continue;
      const commandPath = `${curl.path}/${data.id}`;
      const final = await waitUntil(
        async () => {
          const r = await fetch(`${printed.url}${commandPath}`, {
            headers: { authorization: `Bearer ${printed.token}` },
          });
          const c = ((await r.json()) as { data: { state: string } }).data;
          return ['DONE', 'FAILED', 'EXPIRED'].includes(c.state) ? c : undefined;
        },
        START_MS,
        what,
      );
      expect(final.state, `${what} ${curl.body}`).to.equal('DONE');
    }

    expect(groupAlive(started.child.pid!), 'the group check sees the running demo').to.equal(true);
    // Ctrl-C as a terminal sends it: to the demo and every process in its group at once.
    process.kill(-started.child.pid!, 'SIGINT');
    expect(await started.exited, started.output()).to.equal(0);
    expect(started.output()).to.match(/Stopped every process of the demo and removed/);
    expect(existsSync(printed.dir)).to.equal(false);
    expect(await answers(printed.url)).to.equal(false);
    expect(groupAlive(started.child.pid!), 'a process of the demo is still running').to.equal(false);
  });
});
