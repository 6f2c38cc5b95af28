import { expect } from 'chai';
import { ConfigError, defaultGateway, routerSettings } from '../../../agent/config.js';
import { resolveStateDir } from '../../../agent/state/state-dir.js';

const ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
`;

describe('agent configuration', () => {
  it('router settings: defaults, then environment, then flags', async () => {
    const none = await routerSettings({}, {});
    expect(none).to.include({ host: '127.0.0.1', port: 8728, user: 'admin', password: '', ftpPort: 21 });

    const env = {
      TICKETNET_ROUTER_HOST: '192.168.88.1',
      TICKETNET_ROUTER_PASSWORD: 's3cret',
      TICKETNET_ROUTER_PORT: '8729',
    };
    expect(await routerSettings({}, env)).to.include({
      host: '192.168.88.1',
      port: 8729,
      password: 's3cret',
    });
    expect(await routerSettings({ routerHost: '10.0.0.1', routerPassword: 'x' }, env)).to.include({
      host: '10.0.0.1',
      password: 'x',
    });
  });

  it('refuses a port that is not a number in range', async () => {
    for (const routerPort of ['0', '70000', '87a', '-1']) {
      let error: unknown;
      await routerSettings({ routerPort }, {}).catch((err: unknown) => (error = err));
      expect(error, routerPort).to.be.instanceOf(ConfigError);
    }
  });

  it('--router-host gateway reads the default route (RouterOS container)', async () => {
    expect(await defaultGateway(async () => ROUTES)).to.equal('172.17.0.1');
    expect(await routerSettings({ routerHost: 'gateway' }, {}, async () => ROUTES)).to.include({
      host: '172.17.0.1',
    });
    let error: unknown;
    await defaultGateway(async () => ROUTES.split('\n').slice(0, 1).join('\n')).catch(
      (err: unknown) => (error = err),
    );
    expect(error).to.be.instanceOf(ConfigError);
  });

  it('state directory: flag, then environment, then root or local default', () => {
    expect(
      resolveStateDir({ flag: 'x', env: { TICKETNET_AGENT_STATE_DIR: '/env' }, cwd: '/w', uid: 1000 }),
    ).to.equal('/w/x');
    expect(resolveStateDir({ env: { TICKETNET_AGENT_STATE_DIR: '/env' }, cwd: '/w', uid: 1000 })).to.equal(
      '/env',
    );
    expect(resolveStateDir({ env: {}, cwd: '/w', uid: 0 })).to.equal('/var/lib/ticketnet-agent');
    expect(resolveStateDir({ env: {}, cwd: '/w', uid: 1000 })).to.equal('/w/agent-state');
  });
});
