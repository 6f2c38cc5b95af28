// The provisioning script as RouterOS runs it (the simulator's script engine), on 6 and 7.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { readRadiusStatus } from '../../../agent/commands/radius-status.js';
import { applyScript } from '../../../agent/commands/script-apply.js';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import { RouterConnection } from '../../../agent/routeros/router-connection.js';
import { isRouterError } from '../../../agent/routeros/router-error.js';
import { parseCommandOutput } from '../../../protocol/index.js';
import { provisioningScript, SCRIPT_NAME } from '../../../controller/modules/nas/provisioning-script.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';

const TARGET = { address: '172.31.255.2', authPort: 1812, acctPort: 1813, interimSeconds: 300 };
const NAS = {
  id: '0192f1c4-7a3e-7b2c-8d4e-5f6a7b8c9d0e',
  secret: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
};

for (const [version, architecture] of [
  ['7.19', 'arm64'],
  ['6.49', 'mipsbe'],
] as const) {
  describe(`NAS provisioning script on RouterOS ${version}`, () => {
    let sim: RouterSim;
    let router: RouterConnection;
    beforeEach(async () => {
      sim = new RouterSim({ serial: 'AC40A1B2C3D4', version, architecture, password: 'secret' });
      await sim.start();
      router = new RouterConnection({
        host: '127.0.0.1',
        port: sim.port,
        user: 'admin',
        password: 'secret',
        timeoutMs: 3000,
        connectTimeoutMs: 2000,
      });
    });
    afterEach(async () => {
      await router.close();
      await sim.stop();
    });

    const radius = () =>
      sim.state
        .table('/radius')
        .list()
        .map((r) => r.props);

    it('configures RADIUS, the hotspot profiles and CoA, and can run again without duplicating', async () => {
      // An entry of the operator's own is left alone; an older ticketnet entry is replaced.
      await sim.runScript('/radius add address=10.9.9.9 secret=mine service=login comment="office"');
      await sim.runScript(
        '/radius add address=172.31.255.2 secret=old service=hotspot comment="ticketnet:old-nas"',
      );
      const script = provisioningScript(NAS, TARGET);
      for (let run = 0; run < 2; run++) {
        const result = await sim.runScript(script);
        expect(result.ok, result.error).to.equal(true);
      }
      expect(radius().map((r) => r.comment)).to.deep.equal(['office', `ticketnet:${NAS.id}`]);
      expect(radius()[1]).to.include({ address: '172.31.255.2', secret: NAS.secret, service: 'hotspot' });
      for (const p of sim.state.table('/ip/hotspot/profile').list()) {
        expect(p.props).to.include({ 'use-radius': 'true', 'radius-accounting': 'true' });
      }
      expect(sim.state.table('/radius/incoming').list()[0]!.props.accept).to.equal('true');
    });

    it('is applied by the agent command and read back by radius.status', async () => {
      const before = parseCommandOutput('radius.status', await readRadiusStatus(router));
      expect(before.ok).to.equal(true);
      if (!before.ok) return;
      expect(before.value.radius).to.deep.equal([]);
      expect(before.value.incoming_accept).to.equal(false);
      expect(before.value.hotspot_profiles.map((p) => [p.name, p.use_radius, p.in_use])).to.deep.equal([
        ['default', false, false],
        ['hsprof1', false, true],
      ]);

      const applied = await applyScript(router, {
        name: SCRIPT_NAME,
        source: provisioningScript(NAS, TARGET),
        logger: SILENT_LOGGER,
      });
      expect(parseCommandOutput('router.script.apply', applied).ok).to.equal(true);
      expect(
        sim.state
          .table('/system/script')
          .list()
          .map((s) => s.props.name),
      ).not.to.include(SCRIPT_NAME);

      const after = parseCommandOutput('radius.status', await readRadiusStatus(router));
      expect(after.ok).to.equal(true);
      if (!after.ok) return;
      expect(after.value.radius).to.deep.equal([
        {
          address: '172.31.255.2',
          service: ['hotspot'],
          secret_sha256: createHash('sha256').update(NAS.secret).digest('hex'),
          authentication_port: 1812,
          accounting_port: 1813,
          comment: `ticketnet:${NAS.id}`,
          disabled: false,
        },
      ]);
      expect(after.value.hotspot_profiles.every((p) => p.use_radius && p.radius_accounting)).to.equal(true);
      expect(after.value.incoming_accept).to.equal(true);
      // The secret itself never leaves the router.
      expect(JSON.stringify(after.value)).not.to.include(NAS.secret);
    });

    it('fails with the router trap when a line is refused, and removes its temporary script', async () => {
      sim.faults.set({ failCommand: { path: '/radius/add', message: 'failure: not enough permissions' } });
      const err = await applyScript(router, {
        name: SCRIPT_NAME,
        source: provisioningScript(NAS, TARGET),
        logger: SILENT_LOGGER,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isRouterError(err)).to.equal(true);
      expect((err as { code: string }).code).to.equal('ROUTER_TRAP');
      expect((err as Error).message).to.include('not enough permissions');
      expect(
        sim.state
          .table('/system/script')
          .list()
          .map((s) => s.props.name),
      ).not.to.include(SCRIPT_NAME);
    });

    it('replaces a temporary script left behind by an interrupted run', async () => {
      await sim.runScript(`/system script add name=${SCRIPT_NAME} source=":log info leftover"`);
      await applyScript(router, {
        name: SCRIPT_NAME,
        source: provisioningScript(NAS, TARGET),
        logger: SILENT_LOGGER,
      });
      expect(radius().map((r) => r.comment)).to.deep.equal([`ticketnet:${NAS.id}`]);
      expect(
        sim.state
          .table('/system/script')
          .list()
          .map((s) => s.props.name),
      ).not.to.include(SCRIPT_NAME);
    });
  });
}
