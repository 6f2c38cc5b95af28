// Each injected fault, as node-routeros (and so the agent) experiences it.
import { connect as netConnect } from 'node:net';
import { constants } from 'node:os';
import { expect } from 'chai';
import { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { connectApi, settledWithin, startSim } from './sim-helpers.js';

describe('routeros-sim faults', () => {
  let sim: RouterSim;
  beforeEach(async () => {
    sim = await startSim({ version: '7.19', seed: { hotspotUsers: 10, salesScripts: 2 } });
  });
  afterEach(async () => {
    await sim.stop();
  });

  it('refuseConnections closes right after accept (node-routeros connect() never settles)', async () => {
    sim.faults.set({ refuseConnections: true });
    const sock = netConnect(sim.port, '127.0.0.1');
    const ended = await new Promise<boolean>((resolve) => sock.once('end', () => resolve(true)));
    expect(ended).to.equal(true);
    sock.destroy();
    const api = new RouterOSAPI({
      host: '127.0.0.1',
      port: sim.port,
      user: 'admin',
      password: 'secret',
      timeout: 2,
    });
    let closed = false;
    api.on('close', () => (closed = true));
    expect(await settledWithin(api.connect(), 300)).to.equal('pending');
    expect(closed).to.equal(true);
  });

  it("refuseConnections: 'reset' makes connect() reject", async () => {
    sim.faults.set({ refuseConnections: 'reset' });
    const api = new RouterOSAPI({
      host: '127.0.0.1',
      port: sim.port,
      user: 'admin',
      password: 'secret',
      timeout: 2,
    });
    const err = await api.connect().then(
      () => undefined,
      (e: Error & { errno?: unknown }) => e,
    );
    expect(err).to.be.instanceOf(Error);
  });

  it('delayMs slows every reply', async () => {
    const api = await connectApi(sim);
    sim.faults.set({ delayMs: 150 });
    const t0 = Date.now();
    await api.write('/system/identity/print');
    expect(Date.now() - t0).to.be.at.least(145);
    sim.faults.clear();
    await api.close();
  });

  it('dropSocketSilently stops answering after N commands and never closes', async () => {
    const api = await connectApi(sim, { timeout: 0.3 });
    const errors: Array<Error & { errno?: unknown }> = [];
    api.on('error', (e: Error) => errors.push(e));
    sim.faults.set({ dropSocketSilently: true, afterCommands: 1 });
    expect(await api.write('/system/identity/print')).to.have.length(1);
    const pending = api.write('/system/identity/print');
    // node-routeros only reports its socket timeout as an 'error' event; the command itself never settles
    expect(await settledWithin(pending, 800)).to.equal('pending');
    expect(errors.map((e) => e.errno)).to.deep.equal(['SOCKTMOUT']);
    // the simulator never closed its side
    expect(sim.connections).to.equal(1);
  });

  it('resetConnection destroys the socket with an RST (ECONNRESET)', async () => {
    const api = await connectApi(sim);
    const error = new Promise<Error & { errno?: unknown }>((resolve) => api.once('error', resolve));
    sim.faults.set({ resetConnection: true });
    const pending = api.write('/ip/hotspot/user/print');
    const err = await error;
    // node-routeros wraps it in a RosException with the numeric errno and an empty message
    expect(err.errno).to.equal(-constants.errno.ECONNRESET);
    // and the pending command is never settled by node-routeros
    expect(await settledWithin(pending, 100)).to.equal('pending');
  });

  it('fatal answers !fatal and closes; node-routeros reports a close', async () => {
    const api = await connectApi(sim);
    const closed = new Promise<void>((resolve) => api.once('close', () => resolve()));
    sim.faults.set({ fatal: 'system is rebooting' });
    const pending = api.write('/system/identity/print');
    await closed;
    expect(await settledWithin(pending, 100)).to.equal('pending');
  });

  it('failCommand traps a chosen command', async () => {
    const api = await connectApi(sim);
    sim.faults.set({
      failCommand: { path: '/system/backup/save', message: 'failure: could not save backup', category: 5 },
    });
    const msg = await api.write('/system/backup/save', ['=name=x']).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(msg).to.equal('failure: could not save backup');
    await api.close();
  });

  it('itemGone: the item a command names is gone when it runs, which traps "no such item"', async () => {
    const api = await connectApi(sim);
    const leases = sim.state.table('/ip/dhcp-server/lease');
    const lease = leases.insert({
      address: '192.168.88.50',
      'mac-address': '24:A4:3C:00:00:50',
      dynamic: 'true',
    });
    const [seen] = await api.write('/ip/dhcp-server/lease/print', ['?address=192.168.88.50']);
    sim.faults.set({ itemGone: { path: '/ip/dhcp-server/lease/make-static' } });
    const msg = await api.write('/ip/dhcp-server/lease/make-static', [`=.id=${seen!['.id']}`]).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(msg).to.equal('no such item');
    expect(leases.get(lease.id)).to.equal(undefined);
    // other commands of the menu run as usual
    const added = await api.write('/ip/dhcp-server/lease/add', [
      '=address=192.168.88.51',
      '=mac-address=24:A4:3C:00:00:51',
    ]);
    expect(leases.findBy('address', '192.168.88.51')).not.to.equal(undefined);
    expect(added).to.be.an('array');
    await api.close();
  });

  it('outOfFlash: free-hdd-space 0 and backup traps "not enough space"', async () => {
    const api = await connectApi(sim);
    sim.faults.set({ outOfFlash: true });
    const [res] = await api.write('/system/resource/print', ['=.proplist=free-hdd-space']);
    expect(res).to.deep.equal({ 'free-hdd-space': '0' });
    const msg = await api.write('/system/backup/save', ['=name=x']).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(msg).to.equal('not enough space');
    await api.close();
  });

  it('a backup larger than the free flash fails too', async () => {
    await sim.stop();
    sim = await startSim({ version: '7.19', freeHddBytes: 1000 });
    const api = await connectApi(sim);
    const msg = await api.write('/system/backup/save', ['=name=x']).catch((e: Error) => e.message);
    expect(msg).to.equal('not enough space');
    expect(sim.state.findFile('x.backup')).to.equal(undefined);
    await api.close();
  });

  it('loseBackup answers !done but no file appears; emptyBackup writes 0 bytes', async () => {
    const api = await connectApi(sim);
    sim.faults.set({ loseBackup: true });
    expect(await api.write('/system/backup/save', ['=name=lost'])).to.deep.equal([]);
    // (checked on the state: a print matching nothing answers !empty on 7.19, which node-routeros cannot parse)
    expect(sim.state.findFile('lost.backup')).to.equal(undefined);
    sim.faults.replace({ emptyBackup: true });
    await api.write('/system/backup/save', ['=name=empty']);
    const [file] = await api.write('/file/print', ['?name=empty.backup', '=.proplist=size']);
    expect(file).to.deep.equal({ size: '0' });
    await api.close();
  });

  it('stallRemovalsAfter: removals stop taking effect but still answer !done', async () => {
    const api = await connectApi(sim);
    const users = await api.write('/ip/hotspot/user/print', ['?-default', '=.proplist=.id']);
    const ids = users.slice(0, 5).map((u) => u['.id']);
    sim.faults.set({ stallRemovalsAfter: 2 });
    const before = sim.state.table('/ip/hotspot/user').size;
    expect(await api.write('/ip/hotspot/user/remove', [`=.id=${ids.join(',')}`])).to.deep.equal([]);
    expect(sim.state.table('/ip/hotspot/user').size).to.equal(before - 2);
    await api.close();
  });
});
