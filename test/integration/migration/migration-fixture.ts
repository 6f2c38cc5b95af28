// Shared set-up of the migration tests: a listening controller (real clock), a client with a
// RADIUS licence, an administrator, and sites made of a RouterOS simulator and the real agent
// runtime over real sockets. The simulator's menus are the proof of what happened on the router.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import type { CommandCatalogue } from '../../../agent/commands/command-catalogue.js';
import type { RunningAgent } from '../../../agent/runtime/agent-runtime.js';
import { startLoopbackAgent } from '../../support/loopback-agent.js';
import { createController } from '../../../controller/controller.js';
import { systemClock } from '../../../controller/core/clock.js';
import { RouterSim, type RouterSimOptions } from '../../routeros-sim/router-sim.js';
import type { TestDatabase } from '../../support/databases.js';
import { TestController, testConfig, type TestResponse } from '../../support/test-controller.js';
import { freeUdpPort } from '../../support/free-port.js';
import { eventually } from '../hub/hub-fixture.js';

const SIM_PASSWORD = 'sim-pass';
export const MIGRATION_BASE = '/api/v1/radius/admin/migration';

export interface Site {
  sim: RouterSim;
  agent: RunningAgent;
  allocationId: string;
}

export class MigrationFixture {
  t!: TestController;
  client!: { token: string; id: string };
  admin!: { token: string; id: string };
  readonly #cleanups: (() => Promise<unknown>)[] = [];
  #baseUrl = '';
  /** The agent's RADIUS relay ports, when the routers must reach the controller's RADIUS. */
  #relay: { authPort: number; acctPort: number } | undefined;

  constructor(private readonly database: TestDatabase) {}

  async start(
    options: { licence?: boolean; relay?: boolean; config?: Record<string, unknown> } = {},
  ): Promise<void> {
    const db = await this.database.open();
    if (options.relay) this.#relay = { authPort: await freeUdpPort(), acctPort: await freeUdpPort() };
    const relayConfig = this.#relay
      ? {
          radiusRelayAddress: '127.0.0.1',
          radiusRelayAuthPort: this.#relay.authPort,
          radiusRelayAcctPort: this.#relay.acctPort,
        }
      : {};
    // The real clock: the migration's run leases and notices are timed as in the field.
    const controller = await createController({
      config: testConfig({ clock: 'system', ...relayConfig, ...options.config }),
      logger: pino({ level: 'silent' }),
      clock: systemClock,
      database: db,
      migration: { maxCommandWaitMs: 20_000 },
    });
    this.t = new TestController(controller, undefined as never, db);
    const { port } = await controller.listen();
    this.#baseUrl = `http://127.0.0.1:${port}`;
    this.client = await this.t.account('client');
    this.admin = await this.t.admin();
    if (options.licence !== false) {
      const granted = await this.t.request('POST', '/api/v1/admin/licences', {
        token: this.admin.token,
        body: { client_id: this.client.id, plan_code: 'RADIUS_ANNUAL' },
      });
      expect(granted.status).to.equal(201);
    }
  }

  async stop(): Promise<void> {
    for (const fn of this.#cleanups.splice(0).reverse()) await fn().catch(() => undefined);
    await this.t.close();
  }

  /** A simulated router with a real agent enrolled on a new allocation of the client. */
  async site(
    options: Partial<RouterSimOptions> & { users?: number; catalogue?: CommandCatalogue } = {},
  ): Promise<Site> {
    const { users, catalogue, ...simOptions } = options;
    const sim = new RouterSim({
      serial: '4C0FFEE01A',
      version: '7.19',
      identity: 'Cyber-Medina',
      password: SIM_PASSWORD,
      ...simOptions,
      seed: { hotspotUsers: users ?? 120, ...simOptions.seed },
    });
    await sim.start();
    this.#cleanups.push(() => sim.stop());
    const created = await this.t.request('POST', '/api/v1/clients/allocations', {
      token: this.client.token,
      body: {},
    });
    const { allocation, enrolment } = created.body.data;
    const stateDir = await mkdtemp(join(tmpdir(), 'tn-migration-'));
    this.#cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const agent = await startLoopbackAgent({
      stateDir,
      controllerUrl: this.#baseUrl,
      enrolCode: enrolment.code,
      router: { port: sim.port, password: SIM_PASSWORD },
      relay: this.#relay,
      ...(catalogue ? { catalogue } : {}),
    });
    this.#cleanups.push(() => agent.stop());
    await this.waitLink(allocation.id, 'CONNECTED');
    return { sim, agent, allocationId: allocation.id };
  }

  waitLink(allocationId: string, state: 'CONNECTED' | 'DISCONNECTED') {
    return eventually(
      async () =>
        (
          await this.t.request('GET', `/api/v1/clients/allocations/${allocationId}`, {
            token: this.client.token,
          })
        ).body.data,
      (a) => a.link_state === state && (state === 'DISCONNECTED' || a.router.serial !== null),
      15_000,
    );
  }

  inventaire(allocationId: string, token = this.admin.token): Promise<TestResponse> {
    return this.t.request('GET', `${MIGRATION_BASE}/${allocationId}/inventaire`, { token });
  }

  migrate(allocationId: string, body: unknown, token = this.admin.token): Promise<TestResponse> {
    return this.t.request('POST', `${MIGRATION_BASE}/${allocationId}`, { token, body });
  }

  retour(allocationId: string, body: unknown, token = this.admin.token): Promise<TestResponse> {
    return this.t.request('POST', `${MIGRATION_BASE}/${allocationId}/retour`, { token, body });
  }

  /** RADIUS_MIGRATION notifications of the client, oldest first. */
  async notices(): Promise<{ etape: string; body: string }[]> {
    const res = await this.t.request('GET', '/api/v1/notifications?limit=100', { token: this.client.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return (res.body.data as { type: string; body: string; data: { etape: string } }[])
      .filter((n) => n.type === 'RADIUS_MIGRATION')
      .reverse()
      .map((n) => ({ etape: n.data.etape, body: n.body }));
  }
}

/** The hotspot users on the simulated router: name → props. */
export function routerUsers(sim: RouterSim): Map<string, Record<string, string>> {
  return new Map(
    sim.state
      .table('/ip/hotspot/user')
      .list()
      .map((r) => [r.props.name!, r.props]),
  );
}

/** Voucher names on the router (the built-in default-trial left out). */
export const voucherNames = (sim: RouterSim): string[] =>
  [...routerUsers(sim).keys()].filter((n) => n !== 'default-trial').sort();

export const hotspotUsesRadius = (sim: RouterSim): boolean[] =>
  sim.state
    .table('/ip/hotspot/profile')
    .list()
    .map((r) => r.props['use-radius'] === 'true');

/** The agent commands an allocation was sent, oldest first: name, and the JSON of params and output. */
export async function sentCommands(
  f: MigrationFixture,
  allocationId: string,
): Promise<{ name: string; params: string; output: string | null }[]> {
  return f.t.db.db
    .selectFrom('agent_commands')
    .select(['name', 'params', 'output'])
    .where('allocation_id', '=', allocationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
