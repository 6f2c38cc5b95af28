// Shared set-up of the end-to-end tests: the controller, RouterOS simulators and site agents, each
// its own OS process started from the TypeScript sources, talking HTTP, websocket and the RouterOS
// API over loopback. The test drives the controller's HTTP API as the mobile app does.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDatabase, TestDbHandle } from '../support/databases.js';
import { spawnTs, type Spawned } from '../support/spawn-process.js';
import { waitFor } from '../support/wait-for.js';

export const ROUTER_USER = 'ticketnet';
export const ROUTER_PASSWORD = 'sim-secret';

// Generous on purpose: the suite shares its machine with other suites and benchmarks, and each
// process compiles its TypeScript through tsx at start. A healthy run takes a fraction of these.
/** Longest wait for a process to start (or an agent's link to come up). */
export const START_MS = 30_000;
/** Longest wait for a command to finish or an allocation to change state. */
export const SETTLE_MS = 30_000;
/** Mocha timeout of one end-to-end test. */
export const TEST_MS = 120_000;

/** Polls `check` until it answers something other than undefined/false. */
export const waitUntil = <T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  what: string,
  everyMs = 50,
): Promise<T> => waitFor(check, { timeoutMs, what, everyMs });

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The JSON log lines of a process (pino), skipping anything else it printed. */
export function logLines(proc: Spawned): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of proc.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by a chunk boundary or not JSON: not a log record
    }
  }
  return lines;
}

/** True while the process has neither exited nor been killed. */
export const isRunning = (proc: Spawned): boolean =>
  proc.child.exitCode === null && proc.child.signalCode === null;

// Variables the controller and the agent read; the test runner's own environment must not leak in.
const SCRUBBED_ENV: Record<string, string> = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('TICKETNET_') || k === 'PORT' || k === 'HOST')
    .map((k) => [k, '']),
);

// ---- the controller's HTTP API, as the mobile app uses it ---------------------------------------

export interface Fault {
  code: string;
  message: string;
  retryable: boolean;
}

export interface Command {
  id: string;
  allocation_id: string;
  name: string;
  state: 'QUEUED' | 'SENT' | 'ACKED' | 'DONE' | 'FAILED' | 'EXPIRED';
  attempts: number;
  sent_at: string | null;
  acked_at: string | null;
  finished_at: string | null;
  output: unknown;
  fault: Fault | null;
}

export interface RouterFacts {
  serial: string | null;
  identity: string | null;
  model: string | null;
  routeros_version: string | null;
  architecture: string | null;
  board_name: string | null;
  free_hdd_bytes: number | null;
  total_hdd_bytes: number | null;
  updated_at: string | null;
}

export interface Allocation {
  id: string;
  label: string | null;
  status: string;
  link_state: 'CONNECTED' | 'DISCONNECTED';
  agent_version: string | null;
  router: RouterFacts;
}

export interface Enrolment {
  code: string;
  expires_at: string;
  controller_url: string;
  install: { linux: string[]; routeros_container: string[] };
}

export interface Client {
  id: string;
  email: string;
  token: string;
}

/** An administrator (created with the controller's CLI, as an operator does) and its token. */
export interface Admin {
  email: string;
  token: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: { success: boolean; data: T; error?: { code: string; message: string } };
}

const FINAL = new Set(['DONE', 'FAILED', 'EXPIRED']);

export class Api {
  constructor(readonly baseUrl: () => string) {}

  async request<T = unknown>(
    method: string,
    path: string,
    options: { token?: string; body?: unknown } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl()}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await res.text();
    let body: ApiResponse<T>['body'];
    try {
      body = JSON.parse(text) as ApiResponse<T>['body'];
    } catch {
      throw new Error(`${method} ${path}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body };
  }

  /** Like request, but the status must be `expected`; answers `data`. */
  async ok<T>(
    expected: number,
    method: string,
    path: string,
    options: { token?: string; body?: unknown } = {},
  ): Promise<T> {
    const res = await this.request<T>(method, path, options);
    if (res.status !== expected) {
      throw new Error(
        `${method} ${path}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`,
      );
    }
    return res.body.data;
  }

  /** Registers a client account (a tenant) and answers its token. */
  async client(email = `client-${Math.random().toString(36).slice(2)}@example.com`): Promise<Client> {
    const data = await this.ok<{ token: string; account: { id: string; email: string } }>(
      201,
      'POST',
      '/api/v1/auth/register',
      { body: { email, password: 'e2e-passw0rd', name: 'E2E client', kind: 'client' } },
    );
    return { id: data.account.id, email: data.account.email, token: data.token };
  }

  /** Grants `client` a licence plan (RADIUS_ANNUAL by default) as an administrator. */
  async grantLicence(admin: Admin, client: Client, planCode = 'RADIUS_ANNUAL'): Promise<void> {
    await this.ok(201, 'POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: client.id, plan_code: planCode },
    });
  }

  allocate(client: Client, label?: string): Promise<{ allocation: Allocation; enrolment: Enrolment }> {
    return this.ok(201, 'POST', '/api/v1/clients/allocations', {
      token: client.token,
      body: label === undefined ? {} : { label },
    });
  }

  allocations(client: Client): Promise<Allocation[]> {
    return this.ok(200, 'GET', '/api/v1/clients/allocations', { token: client.token });
  }

  /** The allocation as the list shows it (the list is what the app polls). */
  async allocation(client: Client, id: string): Promise<Allocation> {
    const found = (await this.allocations(client)).find((a) => a.id === id);
    if (!found) throw new Error(`allocation ${id} is not in the list`);
    return found;
  }

  waitForAllocation(
    client: Client,
    id: string,
    predicate: (a: Allocation) => boolean,
    what: string,
    timeoutMs = SETTLE_MS,
  ): Promise<Allocation> {
    return waitUntil(
      async () => {
        const a = await this.allocation(client, id);
        return predicate(a) ? a : undefined;
      },
      timeoutMs,
      `allocation ${what}`,
      100,
    );
  }

  enqueue(
    client: Client,
    allocationId: string,
    name: string,
    params: Record<string, unknown> = {},
    timeoutSeconds?: number,
  ): Promise<Command> {
    return this.ok(202, 'POST', `/api/v1/clients/allocations/${allocationId}/commands`, {
      token: client.token,
      body: { name, params, ...(timeoutSeconds !== undefined ? { timeout_seconds: timeoutSeconds } : {}) },
    });
  }

  command(client: Client, allocationId: string, commandId: string): Promise<Command> {
    return this.ok(200, 'GET', `/api/v1/clients/allocations/${allocationId}/commands/${commandId}`, {
      token: client.token,
    });
  }

  /** Polls the command until it is DONE, FAILED or EXPIRED. */
  waitForFinal(client: Client, command: Command, timeoutMs = SETTLE_MS): Promise<Command> {
    return waitUntil(
      async () => {
        const c = await this.command(client, command.allocation_id, command.id);
        return FINAL.has(c.state) ? c : undefined;
      },
      timeoutMs,
      `${command.name} ${command.id} to finish`,
      100,
    );
  }

  /** Queues a command and waits for its outcome. */
  async run(
    client: Client,
    allocationId: string,
    name: string,
    params: Record<string, unknown> = {},
    timeoutMs = SETTLE_MS,
  ): Promise<Command> {
    return this.waitForFinal(client, await this.enqueue(client, allocationId, name, params), timeoutMs);
  }
}

// ---- the processes --------------------------------------------------------------------------------

export interface ControllerProcess {
  proc: Spawned;
  port: number;
  url: string;
  /** Where the agent hub listens. */
  agentUrl: string;
}

export interface SimSpec {
  serial: string;
  version: string;
  identity?: string;
  model?: string;
  architecture?: 'arm' | 'arm64' | 'x86' | 'mipsbe' | 'tile';
  users?: number;
  sales?: number;
  freeHdd?: number;
  totalHdd?: number;
  /** Start the FTP server (RouterOS 6 backups come back over FTP). */
  ftp?: boolean;
  /** Listen on this API port (0/undefined: any), e.g. a router coming back on its old port. */
  port?: number;
}

export interface SimFile {
  name: string;
  type: string;
  size: number;
}

export interface SimSummary {
  serial: string;
  identity: string;
  version: string;
  architecture: string;
  model: string;
  freeHddBytes: number;
  files: SimFile[];
  counts: Record<string, number>;
}

/** A RouterOS simulator process with its HTTP control API (faults, state). */
export class SimProcess {
  constructor(
    readonly proc: Spawned,
    readonly spec: SimSpec,
    readonly port: number,
    readonly ftpPort: number | null,
    readonly controlPort: number,
  ) {}

  async control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${this.controlPort}${path}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    if (!res.ok) throw new Error(`sim control ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  summary(): Promise<SimSummary> {
    return this.control('GET', '/state/summary');
  }

  menu(path: string): Promise<Record<string, string>[]> {
    return this.control('GET', `/state/menu?path=${encodeURIComponent(path)}`);
  }

  setFaults(faults: Record<string, unknown>): Promise<unknown> {
    return this.control('PUT', '/faults', faults);
  }

  clearFaults(): Promise<unknown> {
    return this.control('DELETE', '/faults');
  }

  /** A hotspot login at the router (local users first, then RADIUS when the profile asks it). */
  hotspotLogin(login: {
    user: string;
    password: string;
    mac?: string;
    ip?: string;
    server?: string;
    loginBy?: 'http-chap' | 'http-pap';
  }): Promise<{ ok: boolean; reason?: string; radius?: boolean }> {
    return this.control('POST', '/hotspot/login', login);
  }
}

export interface AgentOptions {
  sim: SimProcess;
  /** Enrolment code; left out for an agent that is already enrolled (its state dir holds the identity). */
  code?: string;
  /** Reuse a state directory (a restart); a fresh one otherwise. */
  stateDir?: string;
  /** Router reply timeout (--router-timeout). */
  routerTimeoutMs?: number;
  /**
   * Run this entry instead of `agent/cli.ts run` (it gets the same settings through the
   * environment), e.g. the fast-report agent of test/support.
   */
  entry?: string;
  env?: Record<string, string>;
  /** The router account the agent logs in with (the simulator's administrator by default). */
  routerUser?: string;
}

/** A site agent process and its state directory. */
export class AgentProcess {
  constructor(
    readonly proc: Spawned,
    readonly stateDir: string,
  ) {}

  get alive(): boolean {
    return isRunning(this.proc);
  }

  /** Log records of this process whose message is `msg` (and whose `id`, when given, is `id`). */
  logs(msg: string, id?: string): Record<string, unknown>[] {
    return logLines(this.proc).filter((l) => l.msg === msg && (id === undefined || l.id === id));
  }

  /** How many times this process started command `id` on the router. */
  starts(id: string): number {
    return this.logs('command started', id).length;
  }

  async identity(): Promise<{ agent_id: string; allocation_id: string }> {
    return JSON.parse(await readFile(join(this.stateDir, 'identity.json'), 'utf8')) as {
      agent_id: string;
      allocation_id: string;
    };
  }

  /** The report files waiting in the outbox (`NNNNNNNNNNNN-<report id>.json`). */
  async outbox(): Promise<string[]> {
    return (await readdir(join(this.stateDir, 'outbox'))).filter((n) => n.endsWith('.json')).sort();
  }

  /** The journal entry of command `id`. */
  async journal(id: string): Promise<{ state: string; result?: { status: string } }> {
    return JSON.parse(await readFile(join(this.stateDir, 'journal', `${id}.json`), 'utf8')) as {
      state: string;
      result?: { status: string };
    };
  }
}

/**
 * One test's processes and temp directory. `shutdown()` (afterEach) kills whatever is still
 * running, with SIGKILL so that a hung process cannot hang the suite, and removes the directory.
 */
export class Stack {
  readonly api: Api;
  controller: ControllerProcess | undefined;
  readonly #procs: { name: string; proc: Spawned }[] = [];
  #agents = 0;
  #controllerEnv: Record<string, string> = {};

  private constructor(
    readonly dir: string,
    readonly database: TestDatabase['name'],
    readonly pg: TestDbHandle | undefined,
  ) {
    this.api = new Api(() => {
      if (!this.controller) throw new Error('no controller started');
      return this.controller.url;
    });
  }

  /**
   * A stack whose controller runs on `database`: SQLite (a file in the stack's directory, the
   * default) or PostgreSQL (a fresh schema of the run's database, dropped at shutdown).
   */
  static async create(database?: TestDatabase): Promise<Stack> {
    const dir = await mkdtemp(join(tmpdir(), 'ticketnet-e2e-'));
    if (database?.name !== 'postgres') return new Stack(dir, 'sqlite', undefined);
    const pg = await database.open();
    // The controller processes connect on their own; this handle only owns the schema.
    return new Stack(dir, 'postgres', pg);
  }

  /** Path of the controller's SQLite file (on SQLite). */
  get dbFile(): string {
    return join(this.dir, 'controller', 'ticketnet.db');
  }

  /** The controller's TICKETNET_DB. */
  get dbUrl(): string {
    return this.pg ? this.pg.url : `sqlite:${this.dbFile}`;
  }

  #spawn(name: string, entry: string, args: string[], env: Record<string, string>): Spawned {
    const proc = spawnTs(entry, args, { ...SCRUBBED_ENV, ...env });
    this.#procs.push({ name, proc });
    return proc;
  }

  /** Path of the controller's data directory. */
  get controllerDataDir(): string {
    return join(this.dir, 'controller');
  }

  /**
   * Starts a controller on the stack's database and data directory. `port` 0 takes any free
   * port; a restart passes the old one, since enrolled agents saved the controller's URL. `env`
   * adds settings (e.g. `TICKETNET_JOB_RUN_ROUTE`, `TICKETNET_MIGRATION_LEASE_MS`,
   * `TICKETNET_RADIUS_RELAY_*`); a restart without it keeps the previous start's.
   */
  async startController(
    port = this.controller?.port ?? 0,
    env: Record<string, string> = this.#controllerEnv,
  ): Promise<ControllerProcess> {
    this.#controllerEnv = env;
    const proc = this.#spawn('controller', 'controller/main.ts', [], {
      PORT: String(port),
      HOST: '127.0.0.1',
      TICKETNET_DB: this.dbUrl,
      TICKETNET_DATA_DIR: this.controllerDataDir,
      TICKETNET_API_QUOTA: 'off',
      TICKETNET_LOG_LEVEL: 'info',
      TICKETNET_SCHEDULER_TICK_MS: '200',
      ...env,
    });
    const line = await proc.waitFor(/controller listening/, START_MS);
    const bound = (JSON.parse(line) as { port: number }).port;
    this.controller = {
      proc,
      port: bound,
      url: `http://127.0.0.1:${bound}`,
      agentUrl: `ws://127.0.0.1:${bound}/agent/v1`,
    };
    return this.controller;
  }

  /**
   * Runs `ticketnet-controller <args>` (controller/cli.ts) on the stack's database and data
   * directory, next to a running controller or not; resolves with its output once it exits 0.
   */
  async controllerCli(args: string[]): Promise<string> {
    const proc = this.#spawn(
      'controller cli',
      'controller/cli.ts',
      [...args, '--db', this.dbUrl, '--data-dir', this.controllerDataDir],
      { TICKETNET_LOG_LEVEL: 'warn' },
    );
    const timer = setTimeout(() => proc.child.kill('SIGKILL'), START_MS);
    const code = await proc.exited.finally(() => clearTimeout(timer));
    if (code !== 0)
      throw new Error(`ticketnet-controller ${args.join(' ')} exited ${code}: ${proc.output()}`);
    return proc.output();
  }

  /** Creates an administrator with the CLI (`admin create`), then logs it in over HTTP. */
  async admin(email = `admin-${Math.random().toString(36).slice(2)}@example.com`): Promise<Admin> {
    const password = 'e2e-adm1n-pass';
    await this.controllerCli(['admin', 'create', '--email', email, '--password', password]);
    const data = await this.api.ok<{ token: string }>(200, 'POST', '/api/v1/auth/login', {
      body: { email, password },
    });
    return { email, token: data.token };
  }

  async startSim(spec: SimSpec): Promise<SimProcess> {
    const args = [
      '--port',
      String(spec.port ?? 0),
      '--serial',
      spec.serial,
      '--version',
      spec.version,
      '--username',
      ROUTER_USER,
      '--password',
      ROUTER_PASSWORD,
      '--control-port',
      '0',
    ];
    const optional: [string, string | number | undefined][] = [
      ['--identity', spec.identity],
      ['--model', spec.model],
      ['--architecture', spec.architecture],
      ['--users', spec.users],
      ['--sales', spec.sales],
      ['--free-hdd', spec.freeHdd],
      ['--total-hdd', spec.totalHdd],
      ['--ftp-port', spec.ftp ? 0 : undefined],
    ];
    for (const [flag, value] of optional) if (value !== undefined) args.push(flag, String(value));
    const proc = this.#spawn(`sim ${spec.version}`, 'test/routeros-sim/main.ts', args, {});
    const info = JSON.parse(await proc.waitFor(/"event":"listening"/, START_MS)) as {
      port: number;
      ftpPort: number | null;
      controlPort: number;
    };
    return new SimProcess(proc, spec, info.port, info.ftpPort, info.controlPort);
  }

  /** Starts `ticketnet-agent run` next to a simulator; resolves once its link is ready. */
  async startAgent(options: AgentOptions): Promise<AgentProcess> {
    const agent = this.spawnAgent(options);
    await agent.proc.waitFor(/"msg":"link ready"/, START_MS);
    return agent;
  }

  /** Starts an agent process without waiting for anything. */
  spawnAgent(options: AgentOptions): AgentProcess {
    const stateDir = options.stateDir ?? join(this.dir, `agent-${++this.#agents}`);
    const { sim } = options;
    const settings: Record<string, string | undefined> = {
      TICKETNET_AGENT_STATE_DIR: stateDir,
      TICKETNET_CONTROLLER_URL: options.code !== undefined ? this.controller?.url : undefined,
      TICKETNET_ENROL_CODE: options.code,
      TICKETNET_ROUTER_HOST: '127.0.0.1',
      TICKETNET_ROUTER_PORT: String(sim.port),
      TICKETNET_ROUTER_USER: options.routerUser ?? ROUTER_USER,
      TICKETNET_FTP_PORT: sim.ftpPort !== null ? String(sim.ftpPort) : undefined,
      TICKETNET_ROUTER_TIMEOUT_MS:
        options.routerTimeoutMs !== undefined ? String(options.routerTimeoutMs) : undefined,
    };
    const env: Record<string, string> = {
      TICKETNET_ROUTER_PASSWORD: ROUTER_PASSWORD,
      TICKETNET_LOG_LEVEL: 'info',
      ...(options.env ?? {}),
    };
    let proc: Spawned;
    if (options.entry) {
      for (const [k, v] of Object.entries(settings)) if (v !== undefined) env[k] = v;
      proc = this.#spawn('agent', options.entry, [], env);
    } else {
      // The CLI the way a technician types it: flags, and the password in the environment only.
      const flags: [string, string | undefined][] = [
        ['--controller', settings.TICKETNET_CONTROLLER_URL],
        ['--code', settings.TICKETNET_ENROL_CODE],
        ['--router-host', settings.TICKETNET_ROUTER_HOST],
        ['--router-port', settings.TICKETNET_ROUTER_PORT],
        ['--router-user', settings.TICKETNET_ROUTER_USER],
        ['--ftp-port', settings.TICKETNET_FTP_PORT],
        ['--router-timeout', settings.TICKETNET_ROUTER_TIMEOUT_MS],
      ];
      const args = ['--state-dir', stateDir, 'run'];
      for (const [flag, value] of flags) if (value !== undefined) args.push(flag, value);
      proc = this.#spawn('agent', 'agent/cli.ts', args, env);
    }
    return new AgentProcess(proc, stateDir);
  }

  /** Creates an allocation for `client`, enrols an agent next to `sim` with its code, waits for CONNECTED. */
  async enrolAgent(
    client: Client,
    sim: SimProcess,
    options: Omit<AgentOptions, 'sim' | 'code'> = {},
  ): Promise<{ agent: AgentProcess; allocation: Allocation; code: string }> {
    const { allocation, enrolment } = await this.api.allocate(client, `site ${sim.spec.serial}`);
    const agent = await this.startAgent({ ...options, sim, code: enrolment.code });
    const connected = await this.api.waitForAllocation(
      client,
      allocation.id,
      (a) => a.link_state === 'CONNECTED' && a.router.serial !== null,
      'CONNECTED with router facts',
    );
    return { agent, allocation: connected, code: enrolment.code };
  }

  /** The last lines of every process, for a failed test's report. */
  dump(lines = 25): string {
    return this.#procs
      .map(({ name, proc }) => {
        const tail = proc.output().trimEnd().split('\n').slice(-lines).join('\n');
        const state = isRunning(proc) ? 'running' : `exited ${proc.child.exitCode ?? proc.child.signalCode}`;
        return `--- ${name} (pid ${proc.child.pid}, ${state}) ---\n${tail}`;
      })
      .join('\n');
  }

  async shutdown(): Promise<void> {
    await Promise.all(
      this.#procs.splice(0).map(({ proc }) => (isRunning(proc) ? proc.stop('SIGKILL') : proc.exited)),
    );
    await this.pg?.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
