// Shared set-up of the takeover and sales suites: a listening controller, a licensed client, a fake
// agent on a real socket answering the export commands, and the router truth of a seeded simulator.
import { expect } from 'chai';
import type { Logger } from 'pino';
import type { CommandOutput } from '../../../protocol/index.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import type { ResellerTruth } from '../../routeros-sim/reseller-fleet.js';
import type { TestDatabase } from '../../support/databases.js';
import type { Answer, CommandBody, FakeAgent } from '../../support/fake-agent.js';
import { startHub, type HubTest } from '../hub/hub-fixture.js';

export const FLEET_SERIAL = 'C4AD34AB12CD';

export interface Site {
  h: HubTest;
  agent: FakeAgent;
  allocationId: string;
  /** Answers a command name with this function; others get the fake agent's sample output. */
  answers: Map<string, (command: CommandBody) => Answer>;
  licensedClient(): Promise<{ token: string; id: string }>;
}

export async function startSite(database: TestDatabase, logger?: Logger): Promise<Site> {
  const h = await startHub(database, {}, {}, logger);
  const admin = await h.t.admin();
  const licence = async (clientId: string) => {
    const res = await h.t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: clientId, plan_code: 'RADIUS_ANNUAL' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  await licence(h.client.id);
  const agent = await h.enrolledAgent();
  const answers = new Map<string, (command: CommandBody) => Answer>();
  const fallback = agent.execute;
  agent.execute = (command) => answers.get(command.name)?.(command) ?? fallback(command);
  return {
    h,
    agent,
    allocationId: agent.allocationId!,
    answers,
    async licensedClient() {
      const other = await h.t.account('client');
      await licence(other.id);
      return other;
    },
  };
}

/** The router's reseller fleet as the agent reports it (built from the simulator seed's truth, not the parser). */
export function fleetExport(truths: readonly ResellerTruth[], tags: Record<string, number>) {
  const output: CommandOutput<'resellers.export'> = {
    serial: FLEET_SERIAL,
    accounts: truths.map((r) => ({
      name: r.routerName,
      login: r.routerName.trim(),
      first_name: r.firstName,
      last_name: r.lastName,
      ...(r.phone ? { phone: r.phone } : {}),
      ...(r.email ? { email: r.email } : {}),
      balance: r.balance,
      commission_rate: r.commissionRate,
      created_on: r.createdOn || null,
      disabled: r.disabled,
      movements: r.movements.map((m) => ({
        id: m.id.trim(),
        amount: m.amount,
        kind: m.kind,
        ...(m.note ? { note: m.note } : {}),
        at: m.at.toISOString(),
      })),
      warnings: [],
    })),
    tags: Object.entries(tags).map(([name, count]) => ({ name, count })),
    users_scanned: truths.length + Object.values(tags).reduce((a, b) => a + b, 0),
  };
  return output;
}

/** The seeded fleet (deterministic from the serial) and its tags as written on the tickets. */
export function seededFleet(): { truths: ResellerTruth[]; tags: Record<string, number> } {
  const sim = new RouterSim({ serial: FLEET_SERIAL, version: '7.19', seed: { resellerFleet: true } });
  const tags: Record<string, number> = {};
  for (const user of sim.state.table('/ip/hotspot/user').list()) {
    const m = /^vendu par (.+)$/.exec(user.props.comment ?? '');
    if (m?.[1]) tags[m[1]] = (tags[m[1]] ?? 0) + 1;
  }
  return { truths: sim.seedReport.resellers, tags };
}

export const done = (output: unknown): Answer => ({ status: 'DONE', output });
