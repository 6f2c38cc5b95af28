// `npm run demo`: a whole ticketnet installation on this machine, for a first look or a demo.
// A controller on a temporary SQLite database, two simulated MikroTik routers (RouterOS 6.49 and
// 7.19) and a site agent next to each, all separate processes talking their real protocols over
// loopback. It registers a demo client with a RADIUS licence, enrols both agents, waits until both
// links are up, prints how to log in and what to try, and stays up until Ctrl-C; then it stops
// everything it started and removes its temporary directory.
//
//   npm run demo                          stay up until Ctrl-C
//   npm run demo -- --port 8080           controller on a chosen port (default: any free one)
//   npm run demo -- --exit-after-ready    stop as soon as everything is up (CI smoke test)
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const CLIENT = { email: 'demo@ticketnet.local', password: 'demo-pass-2026', name: 'Demo Client' };
const ADMIN = { email: 'admin@ticketnet.local', password: 'admin-pass-2026' };
const ROUTER_USER = 'admin';
const ROUTER_PASSWORD = 'demo-router';
const START_MS = 60_000;

interface RouterSpec {
  label: string;
  serial: string;
  version: string;
  identity: string;
  model: string;
  architecture: string;
  users: number;
  sales: number;
  /** RouterOS 6 has no /file/read: backups come back over FTP. */
  ftp: boolean;
}

const ROUTERS: RouterSpec[] = [
  {
    label: 'Boutique Plateau',
    serial: 'C4AD34E6A649',
    version: '6.49',
    identity: 'Boutique-Plateau',
    model: '951Ui-2HnD',
    architecture: 'mipsbe',
    users: 25,
    sales: 12,
    ftp: true,
  },
  {
    label: 'Cyber Medina',
    serial: '48A98A07B719',
    version: '7.19',
    identity: 'Cyber-Medina',
    model: 'C52iG-5HaxD2HaxD',
    architecture: 'arm64',
    users: 40,
    sales: 20,
    ftp: false,
  },
];

// ---- child processes ---------------------------------------------------------------------------

/** One process started from the TypeScript sources; its output goes to a log file, read to the end. */
class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly #tail: string[] = [];
  readonly #waiters = new Set<(line: string) => void>();
  readonly #log: WriteStream;
  #partial = '';

  constructor(
    readonly name: string,
    entry: string,
    args: string[],
    env: Record<string, string>,
    logDir: string,
  ) {
    this.#log = createWriteStream(join(logDir, `${name}.log`));
    this.process = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...SCRUBBED_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Both pipes are read until the process ends: a child whose stdout reader goes away can fail
    // its own shutdown (see the demo's notes in the report), and a full pipe would block it.
    for (const stream of [this.process.stdout!, this.process.stderr!]) {
      stream.on('data', (chunk: Buffer) => this.#take(chunk.toString('utf8')));
    }
    this.exited = new Promise((resolve) => this.process.once('exit', (code) => resolve(code)));
    void this.exited.then(() => this.#log.end());
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The last lines it printed. */
  tail(lines = 20): string {
    return this.#tail.slice(-lines).join('\n');
  }

  /** The first line (from now on, or among the last ones kept) that matches. */
  waitFor(pattern: RegExp, timeoutMs = START_MS): Promise<string> {
    const seen = this.#tail.find((l) => pattern.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${this.name}: nothing matched ${pattern} in time`))),
        timeoutMs,
      );
      const onLine = (line: string) => {
        if (pattern.test(line)) finish(() => resolve(line));
      };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.#waiters.delete(onLine);
        settle();
      };
      this.#waiters.add(onLine);
      void this.exited.then((code) =>
        finish(() => reject(new Error(`${this.name} exited (${code}) before printing ${pattern}`))),
      );
    });
  }

  /** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 8000): Promise<void> {
    if (!this.running) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  #take(text: string): void {
    this.#log.write(text);
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      this.#tail.push(line);
      if (this.#tail.length > 200) this.#tail.shift();
      for (const waiter of [...this.#waiters]) waiter(line);
    }
  }
}

// The user's own TICKETNET_* settings (a real database, a real controller URL) must not reach
// the demo's processes.
const SCRUBBED_ENV: Record<string, string> = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('TICKETNET_') || k === 'PORT' || k === 'HOST')
    .map((k) => [k, '']),
);

// ---- the controller's HTTP API -----------------------------------------------------------------

interface Allocation {
  id: string;
  label: string | null;
  link_state: string;
  agent_version: string | null;
  router: {
    serial: string | null;
    identity: string | null;
    model: string | null;
    routeros_version: string | null;
    architecture: string | null;
    board_name: string | null;
    free_hdd_bytes: number | null;
    total_hdd_bytes: number | null;
  };
}

interface Command {
  id: string;
  state: string;
  fault: { code: string; message: string } | null;
}

async function api<T>(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; expect?: number } = {},
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  if (res.status !== (options.expect ?? 200)) {
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  }
  return (JSON.parse(text) as { data: T }).data;
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// ---- the demo ----------------------------------------------------------------------------------

const { values: flags } = parseArgs({
  options: {
    'exit-after-ready': { type: 'boolean', default: false },
    port: { type: 'string', default: '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log('usage: npm run demo [-- --port N] [-- --exit-after-ready]');
  process.exit(0);
}
const port = Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port: expected a port number, got "${flags.port}"`);
  process.exit(2);
}

const dir = await mkdtemp(join(tmpdir(), 'ticketnet-demo-'));
const logDir = join(dir, 'logs');
mkdirSync(logDir);
const children: Child[] = [];
const start = (name: string, entry: string, args: string[], env: Record<string, string> = {}): Child => {
  const child = new Child(name, entry, args, env, logDir);
  children.push(child);
  return child;
};

let stopping: Promise<void> | undefined;
/** Agents first (they would only retry a gone controller), then the controller, then the routers. */
function shutdown(): Promise<void> {
  stopping ??= (async () => {
    const order = (prefix: string) => children.filter((c) => c.name.startsWith(prefix));
    for (const group of [order('agent'), order('controller'), order('router'), children]) {
      await Promise.all(group.map((c) => c.stop()));
    }
    await rm(dir, { recursive: true, force: true });
  })();
  return stopping;
}
// Last resort if the demo itself dies: no process of ours outlives it.
process.on('exit', () => {
  for (const child of children) if (child.running) child.process.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping === undefined) console.log('\nStopping the demo…');
    void shutdown().then(() => {
      console.log(`Stopped every process of the demo and removed ${dir}.`);
      process.exit(0);
    });
  });
}

const controllerEnv = {
  TICKETNET_DB: `sqlite:${join(dir, 'controller', 'ticketnet.db')}`,
  TICKETNET_DATA_DIR: join(dir, 'controller'),
  TICKETNET_LOG_LEVEL: 'info',
};

async function runCli(
  name: string,
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<void> {
  const child = start(name, entry, args, env);
  const code = await child.exited;
  if (code !== 0) throw new Error(`${name} failed (exit ${code}):\n${child.tail()}`);
}

async function startRouter(spec: RouterSpec): Promise<{ port: number; ftpPort: number | null }> {
  const router = start(`router-${spec.version}`, 'test/routeros-sim/main.ts', [
    '--port',
    '0',
    '--serial',
    spec.serial,
    '--version',
    spec.version,
    '--identity',
    spec.identity,
    '--model',
    spec.model,
    '--architecture',
    spec.architecture,
    '--users',
    String(spec.users),
    '--sales',
    String(spec.sales),
    '--username',
    ROUTER_USER,
    '--password',
    ROUTER_PASSWORD,
    ...(spec.ftp ? ['--ftp-port', '0'] : []),
  ]);
  return JSON.parse(await router.waitFor(/"event":"listening"/)) as { port: number; ftpPort: number | null };
}

const mib = (bytes: number | null) => (bytes === null ? '?' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

try {
  console.log(`Starting the ticketnet demo in ${dir} …`);
  const [url, routers] = await Promise.all([
    (async () => {
      await runCli(
        'controller-admin',
        'controller/cli.ts',
        ['admin', 'create', '--email', ADMIN.email, '--password', ADMIN.password, '--name', 'Demo Admin'],
        controllerEnv,
      );
      const controller = start('controller', 'controller/main.ts', [], {
        ...controllerEnv,
        PORT: String(port),
        HOST: '127.0.0.1',
        TICKETNET_CLOCK: 'system',
        TICKETNET_JOB_RUN_ROUTE: 'true',
        TICKETNET_API_QUOTA: 'off',
        TICKETNET_AUTH_FAILURE_QUOTA: 'off',
        TICKETNET_MONEY_QUOTA: 'off',
      });
      const line = await controller.waitFor(/controller listening/);
      return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
    })(),
    Promise.all(ROUTERS.map(startRouter)),
  ]);

  const registered = await api<{ token: string; account: { id: string } }>(
    url,
    'POST',
    '/api/v1/auth/register',
    {
      body: { ...CLIENT, kind: 'client' },
      expect: 201,
    },
  );
  const clientToken = registered.token;
  const admin = await api<{ token: string }>(url, 'POST', '/api/v1/auth/login', {
    body: { email: ADMIN.email, password: ADMIN.password },
  });
  const licence = await api<{ plan_code: string; expires_at: string }>(
    url,
    'POST',
    '/api/v1/admin/licences',
    {
      token: admin.token,
      body: { client_id: registered.account.id, plan_code: 'RADIUS_ANNUAL' },
      expect: 201,
    },
  );

  const allocationIds: string[] = [];
  for (const [i, spec] of ROUTERS.entries()) {
    const { allocation, enrolment } = await api<{ allocation: Allocation; enrolment: { code: string } }>(
      url,
      'POST',
      '/api/v1/clients/allocations',
      { token: clientToken, body: { label: spec.label }, expect: 201 },
    );
    allocationIds.push(allocation.id);
    const router = routers[i]!;
    start(
      `agent-${spec.version}`,
      'agent/cli.ts',
      [
        '--state-dir',
        join(dir, `agent-${spec.version}`),
        'run',
        '--controller',
        url,
        '--code',
        enrolment.code,
        '--router-host',
        '127.0.0.1',
        '--router-port',
        String(router.port),
        '--router-user',
        ROUTER_USER,
        ...(router.ftpPort !== null ? ['--ftp-port', String(router.ftpPort)] : []),
      ],
      // The router password goes through the environment, as the agent's README asks.
      { TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD, TICKETNET_LOG_LEVEL: 'info' },
    );
  }

  const allocations = await until(
    async () => {
      const list = await api<Allocation[]>(url, 'GET', '/api/v1/clients/allocations', { token: clientToken });
      const ready = list.filter((a) => a.link_state === 'CONNECTED' && a.router.serial !== null);
      return ready.length === ROUTERS.length ? list : undefined;
    },
    START_MS,
    'both agents to connect',
  );

  // One command through each link before calling it ready; its id is what the last curl reads back.
  const commands: Command[] = [];
  for (const id of allocationIds) {
    const queued = await api<Command>(url, 'POST', `/api/v1/clients/allocations/${id}/commands`, {
      token: clientToken,
      body: { name: 'router.facts' },
      expect: 202,
    });
    const done = await until(
      async () => {
        const c = await api<Command>(url, 'GET', `/api/v1/clients/allocations/${id}/commands/${queued.id}`, {
          token: clientToken,
        });
        return ['DONE', 'FAILED', 'EXPIRED'].includes(c.state) ? c : undefined;
      },
      START_MS,
      'the first router.facts',
    );
    if (done.state !== 'DONE')
      throw new Error(`router.facts ended ${done.state}: ${JSON.stringify(done.fault)}`);
    commands.push(done);
  }

  const [v6, v7] = allocationIds as [string, string];
  const auth = '-H "authorization: Bearer $TOKEN"';
  const json = `-H 'content-type: application/json'`;
  const lines = [
    '',
    'ticketnet demo is ready.',
    '',
    `Controller      ${url}   (API description: ${url}/api/openapi.json)`,
    '',
    'Client login (a manager with a RADIUS_ANNUAL licence)',
    `  e-mail        ${CLIENT.email}`,
    `  password      ${CLIENT.password}`,
    `  token         ${clientToken}`,
    `  licence       ${licence.plan_code} until ${licence.expires_at}`,
    `Admin login     ${ADMIN.email} / ${ADMIN.password}`,
    `  token         ${admin.token}`,
    '',
    'Allocations',
    ...allocations.flatMap((a) => [
      `  ${a.id}  ${a.label ?? ''}  ${a.link_state}  agent ${a.agent_version ?? '?'}`,
      `      serial ${a.router.serial}  identity ${a.router.identity}  model ${a.router.model} (${a.router.board_name})`,
      `      RouterOS ${a.router.routeros_version}  architecture ${a.router.architecture}  free flash ${mib(a.router.free_hdd_bytes)} of ${mib(a.router.total_hdd_bytes)}`,
    ]),
    '',
    'What to try',
    `  export TN=${url}`,
    `  export TOKEN=${clientToken}`,
    '  # the allocations, their link state and router facts',
    `  curl -s $TN/api/v1/clients/allocations ${auth}`,
    '  # read the facts of the RouterOS 7.19 router through its agent (answers the queued command and its id)',
    `  curl -s -X POST $TN/api/v1/clients/allocations/${v7}/commands ${auth} ${json} -d '{"name":"router.facts"}'`,
    '  # back up the RouterOS 6.49 router (its agent fetches the file over FTP)',
    `  curl -s -X POST $TN/api/v1/clients/allocations/${v6}/commands ${auth} ${json} -d '{"name":"backup.save","params":{"name":"demo"}}'`,
    '  # read a command back: its state, output (a backup comes base64 with size and sha256) or fault',
    `  curl -s $TN/api/v1/clients/allocations/${v7}/commands/${commands[1]!.id} ${auth}`,
    '  # export the hotspot users of a router',
    `  curl -s -X POST $TN/api/v1/clients/allocations/${v6}/commands ${auth} ${json} -d '{"name":"hotspot.users.export"}'`,
    '  # as the admin: run a scheduled job now (the demo turns the job-run route on)',
    `  export ADMIN_TOKEN=${admin.token}`,
    `  curl -s -X POST $TN/api/v1/admin/jobs/AGENT_COMMAND_EXPIRY/run -H "authorization: Bearer $ADMIN_TOKEN"`,
    '',
    `Logs: ${logDir}/*.log`,
  ];
  console.log(lines.join('\n'));

  if (flags['exit-after-ready']) {
    await shutdown();
    console.log(`Stopped every process of the demo and removed ${dir}.`);
    process.exit(0);
  }
  console.log('\nPress Ctrl-C to stop every process of the demo and remove its temporary directory.');
} catch (err) {
  if (stopping === undefined) {
    console.error(`\nThe demo could not start: ${(err as Error).message}`);
    for (const child of children) {
      if (child.tail(1) !== '') console.error(`--- ${child.name} (last lines) ---\n${child.tail(10)}`);
    }
    await shutdown();
    process.exit(1);
  }
}
