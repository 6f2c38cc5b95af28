// The out-of-process entry points: HTTP control API and the CLI.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { expect } from 'chai';
import { ControlServer } from '../../routeros-sim/control-server.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { connectApi, startSim } from './sim-helpers.js';

describe('routeros-sim control API and CLI', () => {
  let sim: RouterSim;
  let control: ControlServer;
  before(async () => {
    sim = await startSim({ version: '6.49' });
    control = new ControlServer(sim);
    await control.listen(0);
  });
  after(async () => {
    await control.close();
    await sim.stop();
  });

  it('summarises state and sets/clears faults over HTTP', async () => {
    const base = `http://127.0.0.1:${control.port}`;
    const summary = (await (await fetch(`${base}/state/summary`)).json()) as {
      counts: Record<string, number>;
      version: string;
    };
    expect(summary.version).to.equal('6.49 (long-term)');
    expect(summary.counts['/ip/hotspot/user']).to.equal(13);

    const put = await fetch(`${base}/faults`, {
      method: 'PUT',
      body: JSON.stringify({ failCommand: { path: '/system/identity/print', message: 'boom' } }),
    });
    expect(put.status).to.equal(200);
    const api = await connectApi(sim);
    expect(await api.write('/system/identity/print').catch((e: Error) => e.message)).to.equal('boom');
    await fetch(`${base}/faults`, { method: 'DELETE' });
    expect(await api.write('/system/identity/print')).to.have.length(1);
    await api.close();

    const bad = await fetch(`${base}/faults`, { method: 'PUT', body: JSON.stringify({ nosuch: true }) });
    expect(bad.status).to.equal(400);
    const users = (await (await fetch(`${base}/state/menu?path=/ip/hotspot/user`)).json()) as Array<
      Record<string, string>
    >;
    expect(users[0]).to.include({ '.id': '*1', name: 'default-trial' });
  });

  it('drives hotspot logins, traffic and scripts over HTTP', async () => {
    const base = `http://127.0.0.1:${control.port}`;
    const post = async (
      path: string,
      body: unknown,
    ): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const script = await post('/script', {
      source: '/ip hotspot user add name=tn-http password=h limit-uptime=1h',
    });
    expect(script.body).to.include({ ok: true });
    const login = await post('/hotspot/login', { user: 'tn-http', password: 'h', mac: 'AA:BB:CC:00:00:01' });
    expect(login.body).to.include({ ok: true, radius: false });
    const traffic = await post('/hotspot/traffic', {
      user: 'tn-http',
      bytesIn: 500,
      bytesOut: 1500,
      seconds: 3600,
    });
    expect(traffic.body).to.deep.equal({ found: true, ended: 'Session-Timeout' });
    expect(sim.state.table('/ip/hotspot/user').findBy('name', 'tn-http')?.props).to.include({
      'bytes-out': '1500',
    });
    expect((await post('/hotspot/traffic', { user: 'tn-http', bytesIn: 1 })).status).to.equal(404);
    expect((await post('/hotspot/login', { password: 'x' })).status).to.equal(400);
    expect((await post('/hotspot/interim', {})).body).to.deep.equal({ sent: 0 });
  });

  it('starts from the CLI, prints its ports as one JSON line and stops on SIGTERM', async function () {
    this.timeout(10000);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/routeros-sim/main.ts',
        '--port',
        '0',
        '--serial',
        'ABCDEF012345',
        '--version',
        '7.16',
        '--control-port',
        '0',
        '--users',
        '3',
        '--reseller-fleet',
        '--interim-timers',
      ],
      {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    const info = JSON.parse(line) as { port: number; controlPort: number; version: string };
    expect(info.version).to.equal('7.16 (stable)');
    const summary = (await (await fetch(`http://127.0.0.1:${info.controlPort}/state/summary`)).json()) as {
      counts: Record<string, number>;
    };
    // 3 vouchers + default-trial + 9 reseller accounts + their tagged tickets
    expect(summary.counts['/ip/hotspot/user']).to.be.greaterThan(4 + 9);
    const seed = (await (await fetch(`http://127.0.0.1:${info.controlPort}/state/seed`)).json()) as {
      resellers: unknown[];
    };
    expect(seed.resellers).to.have.length(9);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
