// Shared set-up of the NAS tests: a listening controller, a client with a RADIUS licence, and
// routers, each an allocation with a fake agent (real socket) in front of a FakeRouter that applies
// provisioning scripts the way the RouterOS script does and answers `radius.status`.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { Config } from '../../../controller/config.js';
import type { ControllerOptions } from '../../../controller/controller.js';
import type { AgentHubOptions } from '../../../controller/hub/agent-hub.js';
import type { TestDatabase } from '../../support/databases.js';
import {
  FakeAgent,
  SAMPLE_FACTS,
  sampleOutput,
  type Answer,
  type CommandBody,
} from '../../support/fake-agent.js';
import type { TestResponse } from '../../support/test-controller.js';
import { eventually, startHub, type HubTest } from '../hub/hub-fixture.js';

export const RADIUS_BASE = '/api/v1/radius';

/** What a hotspot router holds of its RADIUS set-up, changed only by the scripts it is given. */
export class FakeRouter {
  radius: {
    address: string;
    service: string[];
    secret: string;
    authPort: number;
    acctPort: number;
    comment: string;
    disabled: boolean;
  }[] = [];
  profiles = [
    { name: 'default', use_radius: false, radius_accounting: true, in_use: false },
    { name: 'hsprof1', use_radius: false, radius_accounting: true, in_use: true },
  ];
  incoming = false;
  /** Scripts applied, in order. */
  readonly scripts: string[] = [];
  /** When set, this command fails with this fault instead of running. */
  refuse: { command: string; code: 'ROUTER_TRAP' | 'ROUTER_UNREACHABLE'; message: string } | undefined;

  answer(command: CommandBody): Answer {
    if (this.refuse?.command === command.name) {
      return {
        status: 'FAILED',
        fault: { code: this.refuse.code, message: this.refuse.message, retryable: false },
      };
    }
    switch (command.name) {
      case 'hotspot.users.export':
        return {
          status: 'DONE',
          output: {
            users: [{ name: 'v1', profile: '1h', disabled: false }],
            profiles: [{ name: '1h', rate_limit: '2M/4M' }, { name: 'default' }],
            count: 1,
          },
        };
      case 'router.script.apply':
        this.apply(String(command.params.source));
        return { status: 'DONE', output: { name: command.params.name, duration_ms: 12 } };
      case 'radius.status':
        return { status: 'DONE', output: this.status() };
      default:
        return { status: 'DONE', output: sampleOutput(command.name) };
    }
  }

  /** The few lines the provisioning script is made of, as RouterOS would run them. */
  apply(script: string): void {
    this.scripts.push(script);
    for (const line of script.split('\n')) {
      if (line.startsWith('/radius remove'))
        this.radius = this.radius.filter((r) => !r.comment.startsWith('ticketnet:'));
      if (line.startsWith('/radius add ')) {
        const props = Object.fromEntries(
          [...line.matchAll(/([a-z-]+)=("[^"]*"|\S+)/g)].map((m) => [m[1], m[2]!.replace(/^"|"$/g, '')]),
        );
        this.radius.push({
          address: props.address!,
          service: props.service!.split(','),
          secret: props.secret!,
          authPort: Number(props['authentication-port']),
          acctPort: Number(props['accounting-port']),
          comment: props.comment!,
          disabled: false,
        });
      }
      if (line.startsWith('/ip hotspot profile set [find]')) {
        for (const p of this.profiles) {
          p.use_radius = line.includes('use-radius=yes');
          p.radius_accounting = line.includes('radius-accounting=yes');
        }
      }
      if (line.startsWith('/radius incoming set accept=yes')) this.incoming = true;
    }
  }

  status() {
    return {
      radius: this.radius.map((r) => ({
        address: r.address,
        service: r.service,
        secret_sha256: createHash('sha256').update(r.secret).digest('hex'),
        authentication_port: r.authPort,
        accounting_port: r.acctPort,
        comment: r.comment,
        disabled: r.disabled,
      })),
      hotspot_profiles: this.profiles.map((p) => ({ ...p })),
      incoming_accept: this.incoming,
    };
  }
}

export interface Site {
  serial: string;
  allocationId: string;
  agent: FakeAgent;
  router: FakeRouter;
}

export interface NasTest extends HubTest {
  admin: { token: string; id: string };
  /** Requests under /api/v1/radius with the test client's token (or another). */
  radius(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string; token?: string | null; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  /** A router of the test client (or of `token`'s client): allocation, enrolled fake agent, FakeRouter. */
  site(serial: string, token?: string): Promise<Site>;
  /** Closes the site's agent link and waits until the controller has recorded it as down. */
  disconnect(site: Site): Promise<void>;
  /** Grants the RADIUS licence to a client. */
  license(clientId: string): Promise<void>;
  /** Enrols a site in server mode and answers the 201 body. */
  enrolActive(site: Site, token?: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** GET /topology body. */
  topology(token?: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function startNasTest(
  database: TestDatabase,
  overrides: Partial<Record<keyof Config, unknown>> = {},
  hub: Partial<Omit<AgentHubOptions, 'instanceId'>> = {},
  extra: Pick<ControllerOptions, 'pushSender'> = {},
): Promise<NasTest> {
  const h = await startHub(database, overrides, hub, undefined, extra);
  const admin = await h.t.admin();
  const license = async (clientId: string) => {
    const res = await h.t.request('POST', '/api/v1/admin/licences', {
      token: admin.token,
      body: { client_id: clientId, plan_code: 'RADIUS_ANNUAL' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  };
  await license(h.client.id);
  const radius: NasTest['radius'] = (method, path, options = {}) => {
    const token = options.token === undefined ? h.client.token : options.token;
    return h.t.request(method, `${RADIUS_BASE}${path}`, {
      ...(token ? { token } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.raw !== undefined ? { raw: options.raw } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
  };
  const t: NasTest = {
    ...h,
    admin,
    radius,
    license,
    async site(serial, token = h.client.token) {
      const { enrolment, allocation } = await h.allocate(token);
      const agent = new FakeAgent(h.agentUrl);
      const router = new FakeRouter();
      agent.execute = (command) => router.answer(command);
      await agent.enrol(enrolment.code, { ...SAMPLE_FACTS, serial, identity: `Site-${serial}` });
      // Connected, with the serial of its enrolment facts: what POST /nas looks the router up by.
      await eventually(
        async () =>
          (await h.t.request('GET', `/api/v1/clients/allocations/${allocation.id}`, { token })).body.data,
        (a) => a.link_state === 'CONNECTED' && a.router.serial === serial,
      );
      return { serial, allocationId: allocation.id, agent, router };
    },
    async disconnect(site) {
      await site.agent.link!.close();
      await h.t.linkRecordedDown(site.allocationId);
    },
    async enrolActive(site, token = h.client.token) {
      const res = await radius('POST', '/nas', { body: { router_serial: site.serial }, token });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.nas.status).to.equal('ACTIVE');
      return res.body;
    },
    async topology(token = h.client.token) {
      const res = await radius('GET', '/topology', { token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body;
    },
  };
  return t;
}

/** The secret inside a provisioning script. */
export const secretOf = (script: string): string => /secret="([0-9a-f]+)"/.exec(script)![1]!;
