// Per-version behaviour: !empty from 7.18, WireGuard on v7 only, property differences.
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

/** Runs node-routeros in a child process (its !empty failure is an uncaught exception). */
function nodeRouterosChild(port: number, words: string[]): Promise<Record<string, unknown>> {
  const script = `
    const { RouterOSAPI } = require('node-routeros');
    const out = (o) => { console.log(JSON.stringify(o)); process.exit(0); };
    process.on('uncaughtException', (e) => out({ uncaught: e.message, errno: e.errno }));
    const api = new RouterOSAPI({ host: '127.0.0.1', port: ${port}, user: 'admin', password: 'secret', timeout: 2 });
    api.connect()
      .then(() => api.write(${JSON.stringify(words)}))
      .then((r) => out({ result: r }), (e) => out({ rejected: e.message }));
    setTimeout(() => out({ pending: true }), 1500);
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: process.cwd() });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>);
      } catch (err) {
        reject(err as Error);
      }
    });
  });
}

describe('routeros-sim versions', () => {
  let v7: RouterSim;
  let v6: RouterSim;
  before(async () => {
    v7 = await startSim({ version: '7.19' });
    v6 = await startSim({ version: '6.49.10' });
  });
  after(async () => {
    await v7.stop();
    await v6.stop();
  });

  it('answers !empty then !done on 7.19 for a print that matches nothing', async () => {
    const raw = await RawClient.login(v7.port);
    const reply = await raw.command(['/ip/hotspot/user/print', '?name=nobody', '.tag=e'], 'e');
    expect(reply).to.deep.equal([
      ['!empty', '.tag=e'],
      ['!done', '.tag=e'],
    ]);
    raw.close();
  });

  it('answers only !done on 6.49', async () => {
    const raw = await RawClient.login(v6.port);
    const reply = await raw.command(['/ip/hotspot/user/print', '?name=nobody', '.tag=e'], 'e');
    expect(reply).to.deep.equal([['!done', '.tag=e']]);
    raw.close();
  });

  it('shows that node-routeros 1.6.9 throws on !empty from inside its socket handler', async () => {
    const onV7 = await nodeRouterosChild(v7.port, ['/ip/hotspot/user/print', '?name=nobody']);
    expect(onV7).to.deep.equal({ uncaught: 'Tried to process unknown reply: !empty', errno: 'UNKNOWNREPLY' });
    const onV6 = await nodeRouterosChild(v6.port, ['/ip/hotspot/user/print', '?name=nobody']);
    expect(onV6).to.deep.equal({ result: [] });
  });

  it('has WireGuard on v7 only', async () => {
    const api6 = await connectApi(v6);
    const err = await api6.write('/interface/wireguard/print').then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(err).to.equal('no such command prefix');
    await api6.close();
    const api7 = await connectApi(v7);
    const [ret] = await api7.write('/interface/wireguard/add', ['=name=wg-ticketnet', '=listen-port=51820']);
    await api7.write('/interface/wireguard/peers/add', [
      '=interface=wg-ticketnet',
      '=public-key=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      '=allowed-address=10.99.0.1/32',
    ]);
    const [wg] = await api7.write('/interface/wireguard/print', [`?.id=${ret?.ret ?? ''}`]);
    expect(wg?.['public-key']).to.match(/^[A-Za-z0-9+/]{43}=$/);
    await api7.close();
  });

  it('differs in resource, routerboard and date formats as the capability table says', async () => {
    const api6 = await connectApi(v6);
    const api7 = await connectApi(v7);
    const [r6] = await api6.write('/system/resource/print');
    const [r7] = await api7.write('/system/resource/print');
    expect(r6)
      .to.include({ version: '6.49.10 (long-term)', 'architecture-name': 'mipsbe' })
      .and.have.property('bad-blocks');
    expect(r7)
      .to.include({ version: '7.19 (stable)', 'architecture-name': 'arm64' })
      .and.have.property('factory-software');
    const [rb6] = await api6.write('/system/routerboard/print');
    const [rb7] = await api7.write('/system/routerboard/print');
    expect(rb6?.model).to.equal('952Ui-5ac2nD');
    expect(rb7?.model).to.equal('RBC52iG-5HaxD2HaxD');
    expect(rb7?.['serial-number']).to.equal(v7.state.identity.serial);
    const [c6] = await api6.write('/system/clock/print');
    const [c7] = await api7.write('/system/clock/print');
    expect(c6?.date).to.match(/^[a-z]{3}\/\d\d\/\d{4}$/);
    expect(c7?.date).to.match(/^\d{4}-\d\d-\d\d$/);
    const fileRead6 = await api6
      .write('/file/read', ['=file=hotspot/login.html', '=chunk-size=10'])
      .catch((e: Error) => e.message);
    expect(fileRead6).to.equal('no such command');
    await api6.close();
    await api7.close();
  });

  it('seeds the same router from the same serial', async () => {
    const again = await startSim({ version: '7.19' });
    const names = (s: RouterSim): string[] =>
      s.state
        .table('/ip/hotspot/user')
        .list()
        .map((u) => `${u.id}:${u.props.name}`);
    expect(names(again)).to.deep.equal(names(v7));
    const sales = v7.state
      .table('/system/script')
      .list()
      .map((s) => s.props.name ?? '');
    expect(sales.every((n) => n.split('-|-').length >= 9)).to.equal(true);
    const reconnection = sales.find((n) => n.startsWith('-|-'));
    expect(reconnection?.split('-|-')).to.have.length(10);
    await again.stop();
  });
});
