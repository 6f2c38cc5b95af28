// Shared set-up of the bandwidth route tests: a listening controller, a client with the RADIUS
// licence and the monitoring subscription, and routers enrolled as NAS behind fake agents that
// answer `bandwidth.apply` as a router would (what they hold is what the last command asked for).
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { CommandParams } from '../../../protocol/index.js';
import type { TestDatabase } from '../../support/databases.js';
import type { TestResponse } from '../../support/test-controller.js';
import { startNasTest, type NasTest, type Site } from '../nas/nas-fixture.js';
import { FakePushSender } from '../notifications/fixture.js';

export interface BwSite extends Site {
  nasId: string;
  /** The bandwidth params the router was last brought to, and every apply received. */
  applied: CommandParams<'bandwidth.apply'>[];
  /** Open hotspot sessions the router reports. */
  sessions: { user: string; address: string; bytes_in: number; bytes_out: number }[];
  /** `bandwidth.digest` reads answered; set `edited` to play a hand edit on the router. */
  digestReads: number;
  edited: boolean;
  /** When true, `hotspot.active.usage` fails as a router that cannot be read. */
  usageFails: boolean;
}

export interface BwTest extends NasTest {
  /** Every push the controller sent (the NOTIFICATIONS_PUSH job), as the provider got it. */
  pushes: FakePushSender;
  bw(method: string, path: string, body?: unknown, token?: string): Promise<TestResponse>;
  admin: { token: string; id: string };
  grant(clientId: string, plan: string): Promise<void>;
  bwSite(serial: string, token?: string): Promise<BwSite>;
  reconcile(limite?: number): Promise<TestResponse>;
  /** What the hub's heartbeat does on a live link, at the manual clock's time (tests move it by days). */
  keepLinks(): Promise<void>;
}

export async function startBandwidthTest(database: TestDatabase): Promise<BwTest> {
  const pushes = new FakePushSender();
  const t = await startNasTest(database, {}, { heartbeatMs: 3_600_000 }, { pushSender: pushes });
  const grant = async (clientId: string, plan: string) => {
    const res = await t.t.request('POST', '/api/v1/admin/licences', {
      token: t.admin.token,
      body: { client_id: clientId, plan_code: plan },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  await grant(t.client.id, 'MONITORING_MONTHLY');
  const keepLinks = async () => {
    await t.t.db.db
      .updateTable('agent_links')
      .set({ last_seen_at: t.t.clock.now().toISOString() })
      .where('link_state', '=', 'CONNECTED')
      .execute();
  };
  return {
    ...t,
    pushes,
    grant,
    bw: (method, path, body, token = t.client.token) =>
      t.t.request(method, `/api/v1/radius${path}`, { token, ...(body !== undefined ? { body } : {}) }),
    async bwSite(serial, token = t.client.token) {
      const site = await t.site(serial, token);
      const enrolled = await t.enrolActive(site, token);
      const bw: BwSite = {
        ...site,
        nasId: enrolled.nas.id,
        applied: [],
        sessions: [],
        digestReads: 0,
        edited: false,
        usageFails: false,
      };
      // What the router holds, as a digest: the last params applied (a hand edit changes it).
      const held = () =>
        createHash('sha256')
          .update(JSON.stringify(bw.applied.at(-1) ?? null) + (bw.edited ? 'edited' : ''))
          .digest('hex')
          .slice(0, 32);
      const answer = site.agent.execute;
      site.agent.execute = (command) => {
        if (command.name === 'bandwidth.digest') {
          bw.digestReads++;
          return {
            status: 'DONE',
            output: { digest: held(), found: bw.applied.length, wan_interface: 'ether1' },
          };
        }
        if (command.name === 'bandwidth.apply') {
          const params = command.params as CommandParams<'bandwidth.apply'>;
          const last = bw.applied[bw.applied.length - 1];
          const same = last !== undefined && JSON.stringify(last) === JSON.stringify(params) && !bw.edited;
          bw.applied.push(params);
          bw.edited = false;
          return {
            status: 'DONE',
            output: {
              found: last ? 1 : 0,
              added: same ? 0 : 1,
              updated: 0,
              removed: 0,
              state: params.cap ? 'ON' : 'OFF',
              users: params.users.length,
              wan_interface: 'ether1',
              digest: held(),
            },
          };
        }
        if (command.name === 'hotspot.active.usage')
          return bw.usageFails
            ? { status: 'FAILED', fault: { code: 'ROUTER_TRAP', message: 'no such menu', retryable: false } }
            : { status: 'DONE', output: { sessions: bw.sessions } };
        return answer(command);
      };
      return bw;
    },
    keepLinks,
    reconcile: async (limite) => {
      await keepLinks();
      return t.t.request(
        'POST',
        `/api/v1/radius/admin/bandwidth/reconcile${limite ? `?limite=${limite}` : ''}`,
        {
          token: t.admin.token,
        },
      );
    },
  };
}
