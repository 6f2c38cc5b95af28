// The simulator through the real node-routeros client: login, print, edits, tags.
import { expect } from 'chai';
import { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

describe('routeros-sim API commands (node-routeros)', () => {
  let sim: RouterSim;
  let api: RouterOSAPI;

  before(async () => {
    sim = await startSim({ identity: 'site-dakar' });
    api = await connectApi(sim);
  });
  after(async () => {
    await api.close();
    await sim.stop();
  });

  it('logs in with the right password and counts the connection', async () => {
    expect(api.connected).to.equal(true);
    expect(sim.connections).to.equal(1);
    const [identity] = await api.write('/system/identity/print');
    expect(identity).to.deep.equal({ name: 'site-dakar' });
  });

  it('refuses a wrong password the way RouterOS does', async () => {
    const bad = new RouterOSAPI({
      host: '127.0.0.1',
      port: sim.port,
      user: 'admin',
      password: 'nope',
      timeout: 2,
    });
    const err = await bad.connect().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('Username or password is invalid');
    // and on the wire: the RouterOS 6.43+ message, then the router hangs up
    const raw = await RawClient.open(sim.port);
    const reply = await raw.command(['/login', '=name=admin', '=password=nope', '.tag=1'], '1');
    expect(reply).to.deep.equal([
      ['!trap', '.tag=1', '=message=invalid user name or password (6)'],
      ['!done', '.tag=1'],
    ]);
    await raw.next(500).catch(() => undefined);
    expect(raw.ended).to.equal(true);
  });

  it('prints with .proplist and ? queries', async () => {
    const users = sim.state.table('/ip/hotspot/user').list();
    const target = users[3]?.props.name ?? '';
    const rows = await api.write('/ip/hotspot/user/print', [
      '=.proplist=.id,name,profile',
      `?name=${target}`,
    ]);
    expect(rows).to.have.length(1);
    expect(Object.keys(rows[0] ?? {})).to.deep.equal(['.id', 'name', 'profile']);
    expect(rows[0]?.['.id']).to.match(/^\*[0-9A-F]+$/);

    const noComment = await api.write('/ip/hotspot/user/print', ['=.proplist=name', '?-comment']);
    expect(noComment.length).to.equal(users.filter((u) => u.props.comment === undefined).length);

    const either = await api.write('/ip/hotspot/user/print', [
      '=.proplist=name',
      '?name=default-trial',
      `?name=${target}`,
      '?#|',
    ]);
    expect(either.map((r) => r.name).sort()).to.deep.equal(['default-trial', target].sort());

    const [count] = await api.write('/ip/hotspot/user/print', ['=count-only=', '?profile=default']);
    expect(count?.ret).to.equal(String(users.filter((u) => u.props.profile === 'default').length));
  });

  it('adds, sets, disables and removes (comma list) like RouterOS', async () => {
    const [added] = await api.write('/ip/hotspot/user/add', [
      '=name=zz1001',
      '=password=zz1001',
      '=profile=1h-500F',
      '=limit-uptime=01:00:00',
      '=comment=vendu par awa',
    ]);
    const id = added?.ret ?? '';
    expect(id).to.match(/^\*[0-9A-F]+$/);
    const [second] = await api.write('/ip/hotspot/user/add', ['=name=zz1002']);
    await api.write('/ip/hotspot/user/set', [`=.id=${id}`, '=comment=réseau nord']);
    await api.write('/ip/hotspot/user/disable', [`=.id=${id}`]);
    const [row] = await api.write('/ip/hotspot/user/print', [`?.id=${id}`]);
    expect(row).to.include({
      name: 'zz1001',
      'limit-uptime': '1h',
      comment: 'réseau nord',
      disabled: 'true',
      dynamic: 'false',
    });

    await api.write('/ip/hotspot/user/remove', [`=.id=${id},${second?.ret ?? ''}`]);
    expect(sim.state.table('/ip/hotspot/user').findBy('name', 'zz1001')).to.equal(undefined);
    expect(sim.state.table('/ip/hotspot/user').findBy('name', 'zz1002')).to.equal(undefined);
  });

  it('traps on duplicates, unknown profiles, missing ids and unknown commands', async () => {
    const fail = (words: string[], cmd: string): Promise<string> =>
      api.write(cmd, words).then(
        () => 'resolved',
        (e: Error) => e.message,
      );
    expect(await fail(['=name=default-trial'], '/ip/hotspot/user/add')).to.equal(
      'failure: already have user with this name',
    );
    expect(await fail(['=name=qq1', '=profile=nope'], '/ip/hotspot/user/add')).to.equal(
      'input does not match any value of profile',
    );
    expect(await fail(['=.id=*FFFF'], '/ip/hotspot/user/remove')).to.equal('no such item');
    expect(await fail([], '/ip/nothing/print')).to.equal('no such command prefix');
    expect(await fail([], '/ip/hotspot/user/explode')).to.equal('no such command');
  });

  it('keeps names unique through renames and removals, and filters by names as a full listing does', async () => {
    const fail = (cmd: string, words: string[]): Promise<string> =>
      api.write(cmd, words).then(
        () => 'resolved',
        (e: Error) => e.message,
      );
    const [a] = await api.write('/ip/hotspot/user/add', ['=name=ix-a']);
    const [b] = await api.write('/ip/hotspot/user/add', ['=name=ix-b']);
    expect(await fail('/ip/hotspot/user/set', [`=.id=${b?.ret}`, '=name=ix-a'])).to.equal(
      'failure: already have user with this name',
    );
    // a renamed entry frees its old name and takes the new one; setting its own name is no clash
    await api.write('/ip/hotspot/user/set', [`=.id=${a?.ret}`, '=name=ix-c']);
    await api.write('/ip/hotspot/user/set', [`=.id=${a?.ret}`, '=name=ix-c']);
    expect(await fail('/ip/hotspot/user/add', ['=name=ix-a'])).to.equal('resolved');
    expect(await fail('/ip/hotspot/user/add', ['=name=ix-c'])).to.equal(
      'failure: already have user with this name',
    );
    await api.write('/ip/hotspot/user/remove', [`=.id=${b?.ret}`]);
    expect(await fail('/ip/hotspot/user/add', ['=name=ix-b'])).to.equal('resolved');

    const all = await api.write('/ip/hotspot/user/print', ['=.proplist=.id,name']);
    const wanted = ['ix-b', 'nobody', 'default-trial', 'ix-c', all[2]?.name ?? ''];
    const byNames = await api.write('/ip/hotspot/user/print', [
      '=.proplist=.id,name',
      ...wanted.map((n) => `?name=${n}`),
      `?#${'|'.repeat(wanted.length - 1)}`,
    ]);
    expect(byNames).to.deep.equal(all.filter((r) => wanted.includes(r.name ?? '')));
    const [count] = await api.write('/ip/hotspot/user/print', ['=count-only=']);
    expect(count?.ret).to.equal(String(all.length));
  });

  it('answers singleton menus and keeps /interface in step with ethernet MAC changes', async () => {
    await api.write('/system/identity/set', ['=name=site-thies']);
    expect((await api.write('/system/identity/print'))[0]?.name).to.equal('site-thies');
    await api.write('/interface/ethernet/set', ['=.id=ether1', '=mac-address=02:11:22:33:44:55']);
    const [iface] = await api.write('/interface/print', ['?name=ether1', '=.proplist=mac-address']);
    expect(iface).to.deep.equal({ 'mac-address': '02:11:22:33:44:55' });
  });

  it('runs tagged commands concurrently and routes every reply by tag', async () => {
    const results = await Promise.all([
      api.write('/ping', ['=address=10.5.50.254', '=count=3', '=interval=30ms']),
      ...Array.from({ length: 15 }, () => api.write('/ip/hotspot/user/print', ['=count-only='])),
    ]);
    expect(results[0]).to.have.length(3);
    for (const r of results.slice(1)) expect(r[0]?.ret).to.match(/^\d+$/);

    // raw: the fast command finishes while the slow one is still running
    const raw = await RawClient.login(sim.port);
    raw.send(['/ping', '=address=8.8.8.8', '=count=3', '=interval=40ms', '.tag=slow']);
    raw.send(['/system/identity/print', '.tag=fast']);
    const order: string[] = [];
    while (order.filter((x) => x.startsWith('!done')).length < 2) {
      const [kind, tag] = (await raw.next()).map((w) => w.toString());
      order.push(`${kind} ${tag}`);
    }
    expect(order.indexOf('!done .tag=fast')).to.be.lessThan(order.indexOf('!done .tag=slow'));
    expect(order.filter((x) => x === '!re .tag=slow')).to.have.length(3);
    raw.close();
  });

  it('closes with !fatal on /quit', async () => {
    const raw = await RawClient.login(sim.port);
    raw.send(['/quit', '.tag=q']);
    const fatal = (await raw.next()).map((w) => w.toString());
    expect(fatal).to.deep.equal(['!fatal', 'session terminated on request']);
  });
});
