// Enrolment and the four catalogue commands end to end: the app creates an allocation, a real agent
// process enrols with its code next to a RouterOS simulator process, and every command goes
// app → controller → agent → router and back.
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client as FtpClient } from 'basic-ftp';
import { expect } from 'chai';
import { forEachDatabase } from '../support/databases.js';
import { ROUTER_PASSWORD, ROUTER_USER, Stack, TEST_MS, type SimSpec } from './e2e-stack.js';

interface Backup {
  file_name: string;
  size: number;
  sha256: string;
  content_base64: string;
}

/** A file of the router as its FTP service hands it out: the bytes, independently of the agent. */
async function ftpDownload(port: number, name: string): Promise<Buffer> {
  const ftp = new FtpClient(10_000);
  const chunks: Buffer[] = [];
  try {
    await ftp.access({ host: '127.0.0.1', port, user: ROUTER_USER, password: ROUTER_PASSWORD });
    await ftp.downloadTo(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
      name,
    );
  } finally {
    ftp.close();
  }
  return Buffer.concat(chunks);
}

const ROUTERS: { spec: SimSpec; model: string }[] = [
  {
    spec: {
      serial: 'C4AD34E60601',
      version: '6.49',
      identity: 'Boutique-Plateau',
      model: '951Ui-2HnD',
      architecture: 'mipsbe',
      users: 7,
      freeHdd: 3_145_728,
      totalHdd: 16_777_216,
      // RouterOS 6 has no /file/read: the agent fetches backups over FTP.
      ftp: true,
    },
    model: '951Ui-2HnD',
  },
  {
    spec: {
      serial: '48A98A071901',
      version: '7.19',
      identity: 'Cyber-Medina',
      model: 'C52iG-5HaxD2HaxD',
      architecture: 'arm64',
      users: 12,
      freeHdd: 96_468_992,
      totalHdd: 134_217_728,
    },
    // RouterOS 7 prints the model with its RB prefix.
    model: 'RBC52iG-5HaxD2HaxD',
  },
];

forEachDatabase(
  'e2e: enrolment and commands (controller, agent, RouterOS simulator as processes)',
  function (database) {
    this.timeout(TEST_MS);
    let stack: Stack;

    beforeEach(async () => (stack = await Stack.create(database)));
    afterEach(async function () {
      if (this.currentTest?.state === 'failed') console.log(stack.dump());
      await stack.shutdown();
    });

    it('RouterOS 7.19 container install: the router draws the agent password, the agent enrols with it from the env', async () => {
      const [, sim] = await Promise.all([
        stack.startController(),
        stack.startSim({ serial: '48A98A0719C7', version: '7.19', identity: 'Container-Site' }),
      ]);
      const client = await stack.api.client();
      const { allocation: created, enrolment } = await stack.api.allocate(client, 'Container site');
      // pasted in the router's terminal, as the app shows them
      const run = await sim.control<{ ok: boolean; error?: string }>('POST', '/script', {
        source: enrolment.install.routeros_container.join('\n'),
      });
      expect(run.ok, run.error).to.equal(true);
      // what the container runtime hands the agent: its envs list
      const envs = Object.fromEntries(
        (await sim.menu('/container/envs'))
          .filter((e) => e.name === 'ticketnet')
          .map((e) => [e.key ?? '', e.value ?? '']),
      );
      const password = envs.TICKETNET_ROUTER_PASSWORD ?? '';
      expect(password).to.match(/^[A-Za-z0-9]{32}$/);
      expect(envs.TICKETNET_ENROL_CODE).to.equal(enrolment.code);
      expect(JSON.stringify(enrolment)).to.not.include(password);

      // the router's side of the container link is a veth the test host does not have: loopback instead
      await stack.startAgent({
        sim,
        code: envs.TICKETNET_ENROL_CODE ?? '',
        routerUser: envs.TICKETNET_ROUTER_USER ?? '',
        env: { TICKETNET_ROUTER_PASSWORD: password },
      });
      const allocation = await stack.api.waitForAllocation(
        client,
        created.id,
        (a) => a.link_state === 'CONNECTED' && a.router.serial !== null,
        'CONNECTED with facts',
      );
      expect(allocation.router.serial).to.equal('48A98A0719C7');
      const agentUser = (await sim.menu('/user')).find((u) => u.name === 'ticketnet-agent');
      expect(agentUser?.['last-logged-in'], 'the agent logged in as its own user').to.be.a('string');
      expect(stack.dump(100_000)).to.not.include(password);
    });

    for (const { spec, model } of ROUTERS) {
      it(`RouterOS ${spec.version}: enrols, reports the router's facts, runs facts, ping, export and backup`, async () => {
        const [, sim] = await Promise.all([stack.startController(), stack.startSim(spec)]);
        const client = await stack.api.client();
        const { allocation: created, enrolment } = await stack.api.allocate(client, 'Site under test');
        expect(created.status).to.equal('AWAITING_ENROLMENT');
        expect(created.link_state).to.equal('DISCONNECTED');
        expect(enrolment.code).to.match(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);

        await stack.startAgent({ sim, code: enrolment.code });
        const allocation = await stack.api.waitForAllocation(
          client,
          created.id,
          (a) => a.link_state === 'CONNECTED' && a.router.serial !== null,
          'CONNECTED with facts',
        );
        const expectedFacts = {
          serial: spec.serial,
          identity: spec.identity,
          model,
          routeros_version: spec.version,
          architecture: spec.architecture,
          free_hdd_bytes: spec.freeHdd,
          total_hdd_bytes: spec.totalHdd,
        };
        expect(allocation.status).to.equal('ENROLLED');
        expect(allocation.router).to.include(expectedFacts);

        const facts = await stack.api.run(client, allocation.id, 'router.facts');
        expect(facts.state, JSON.stringify(facts.fault)).to.equal('DONE');
        expect(facts.output).to.include(expectedFacts);

        const ping = await stack.api.run(client, allocation.id, 'router.ping');
        expect(ping.state, JSON.stringify(ping.fault)).to.equal('DONE');
        expect((ping.output as { rtt_ms: number }).rtt_ms)
          .to.be.a('number')
          .at.least(0);

        const exported = await stack.api.run(client, allocation.id, 'hotspot.users.export');
        expect(exported.state, JSON.stringify(exported.fault)).to.equal('DONE');
        const { users, count } = exported.output as { users: { name: string }[]; count: number };
        // The router also holds its built-in default-trial user, which is not a voucher.
        const onRouter = (await sim.menu('/ip/hotspot/user')).filter((u) => u.default !== 'true');
        expect(onRouter).to.have.length(spec.users!);
        expect(count).to.equal(spec.users);
        expect(users.map((u) => u.name).sort()).to.deep.equal(onRouter.map((u) => u.name).sort());

        const saved = await stack.api.run(client, allocation.id, 'backup.save', { name: 'e2e-nightly' });
        expect(saved.state, JSON.stringify(saved.fault)).to.equal('DONE');
        const backup = saved.output as Backup;
        const content = Buffer.from(backup.content_base64, 'base64');
        expect(backup.file_name).to.equal('e2e-nightly.backup');
        expect(backup.size).to.be.above(0).and.equal(content.length);
        expect(backup.sha256).to.equal(createHash('sha256').update(content).digest('hex'));
        const file = (await sim.summary()).files.find((f) => f.name === backup.file_name);
        expect(file, 'the backup file on the router').to.not.equal(undefined);
        expect(file!.size).to.equal(backup.size);
        if (sim.ftpPort !== null) {
          const onFlash = await ftpDownload(sim.ftpPort, backup.file_name);
          expect(createHash('sha256').update(onFlash).digest('hex')).to.equal(backup.sha256);
        }
      });
    }
  },
);
