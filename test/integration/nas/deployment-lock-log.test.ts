// A deployment that fails unexpectedly releases its lock; when that release fails too, the log
// says so (the lock then waits for its expiry) and the caller still gets the first error.
import { expect } from 'chai';
import type { KyselyPlugin } from 'kysely';
import type { AgentCommandRunner } from '../../../controller/hub/index.js';
import { NasDeployment } from '../../../controller/modules/nas/deployment.js';
import { NasRegistry } from '../../../controller/modules/nas/nas-registry.js';
import { RadiusTargets } from '../../../controller/modules/nas/radius-targets.js';
import { forEachDatabase } from '../../support/databases.js';
import { captureLogs } from '../../support/log-capture.js';
import { startTestController } from '../../support/test-controller.js';

forEachDatabase('NAS deployment lock release', (database) => {
  it('logs a release that fails, and answers the error that stopped the deployment', async () => {
    const t = await startTestController(database);
    try {
      const client = await t.account('client');
      const made = await t.request('POST', '/api/v1/clients/allocations', { token: client.token, body: {} });
      expect(made.status).to.equal(201);
      const allocation = await t.controller.services.allocations.get(client.id, made.body.data.allocation.id);

      // The database goes away while the agent command is out.
      let broken = false;
      const breaker: KyselyPlugin = {
        transformQuery(args) {
          if (broken) throw new Error('connection to the database lost');
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      const db = t.controller.database.db.withPlugin(breaker);
      const runner = {
        run: async () => {
          broken = true;
          throw new Error('agent link torn');
        },
      } as unknown as AgentCommandRunner;
      const logs = captureLogs('info');
      const directory = t.controller.services.nas.directory;
      const deployment = new NasDeployment({
        db,
        clock: t.clock,
        logger: logs.logger,
        runner,
        profiles: t.controller.services.profiles,
        registry: new NasRegistry(db, t.controller.database.caps, t.clock, directory),
        targets: new RadiusTargets({
          relayFallback: { address: '192.0.2.1', authPort: 1812, acctPort: 1813 },
          direct: { endpoint: () => null },
          interimSeconds: 300,
        }),
        bridgeTimeoutMs: 1000,
      });

      const failure = await deployment.run(client.id, allocation).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(failure?.message).to.equal('agent link torn');
      const line = logs.records().find((r) => r.msg === 'NAS deployment lock not released');
      expect(line, logs.lines.join('')).to.not.equal(undefined);
      expect(line).to.deep.include({ clientId: client.id, allocationId: allocation.id, level: 50 });
      expect((line!.error as { message: string }).message).to.equal('connection to the database lost');
      expect(logs.lines.join('')).to.not.match(/\n\s+at |\\n\s+at /);
    } finally {
      await t.close();
    }
  });
});
