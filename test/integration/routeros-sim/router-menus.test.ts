// The simulator behaves as a router: API tags, the /user and /user group menus
// (over the API, in scripts, and for logins), /ip firewall nat with its rule order,
// and the :rndstr the install commands use.
import { expect } from 'chai';
import { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

async function trapOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: Error) => e.message,
  );
}

async function login(sim: RouterSim, user: string, password: string): Promise<RouterOSAPI> {
  const api = new RouterOSAPI({ host: '127.0.0.1', port: sim.port, user, password, timeout: 2 });
  await api.connect();
  return api;
}

for (const version of ['6.49.10', '7.19']) {
  describe(`routeros-sim router menus (${version})`, () => {
    let sim: RouterSim;
    let api: RouterOSAPI;

    beforeEach(async () => {
      sim = await startSim({ version });
      api = await connectApi(sim);
    });
    afterEach(async () => {
      await api.close();
      await sim.stop();
    });

    it('answers a command sent with an empty .tag= without any .tag, and a tagged one with its tag', async () => {
      const raw = await RawClient.login(sim.port);
      try {
        raw.send(['/system/identity/print', '.tag=']);
        const untagged = [await raw.next(), await raw.next()].map((s) => s.map((w) => w.toString()));
        expect(untagged).to.deep.equal([['!re', '=name=MikroTik'], ['!done']]);
        raw.send(['/system/identity/set', '=nope=1', '.tag=']);
        const trap = [await raw.next(), await raw.next()].map((s) => s.map((w) => w.toString()));
        expect(trap).to.deep.equal([['!trap', '=message=unknown parameter nope'], ['!done']]);
        const tagged = await raw.command(['/system/identity/print', '.tag=t7'], 't7');
        expect(tagged).to.deep.equal([
          ['!re', '.tag=t7', '=name=MikroTik'],
          ['!done', '.tag=t7'],
        ]);
      } finally {
        raw.close();
      }
    });

    it('has the factory groups and the admin user, and never prints a password', async () => {
      const groups = await api.write('/user/group/print');
      expect(groups.map((g) => g.name)).to.deep.equal(['read', 'write', 'full']);
      const full: string = groups.find((g) => g.name === 'full')?.policy ?? '';
      expect(full.split(',').every((p) => !p.startsWith('!'))).to.equal(true);
      expect(full.split(',')).to.include.members(['api', 'ftp', 'policy', 'write']);
      expect(full.includes('rest-api')).to.equal(version.startsWith('7'));
      const read: string[] = (groups.find((g) => g.name === 'read')?.policy ?? '').split(',');
      expect(read).to.include.members(['read', 'api', '!write', '!policy', '!ftp']);

      const users = await api.write('/user/print');
      expect(users).to.have.length(1);
      expect(users[0]).to.include({ name: 'admin', group: 'full', disabled: 'false' });
      expect(users[0]).to.not.have.property('password');
      // the login that opened this connection is stamped
      expect(users[0]?.['last-logged-in']).to.be.a('string').and.not.equal('');
    });

    it('adds, sets and removes users and groups, refusing what RouterOS refuses', async () => {
      const [added] = await api.write('/user/group/add', [
        '=name=ops',
        '=policy=read,api,!write',
        '=comment=ops',
      ]);
      const groupId = added?.ret;
      expect(groupId).to.match(/^\*[0-9A-F]+$/);
      const [ops] = await api.write('/user/group/print', ['?name=ops']);
      expect(ops?.policy?.split(',')).to.include.members(['read', 'api', '!write', '!ftp', '!local']);
      expect(ops?.policy?.startsWith('read,')).to.equal(true);
      expect(await trapOf(api.write('/user/group/add', ['=name=ops', '=policy=read']))).to.equal(
        'failure: group with the same name already exists',
      );
      expect(await trapOf(api.write('/user/group/add', ['=name=x', '=policy=read,teleport']))).to.equal(
        'invalid value for argument policy',
      );

      await api.write('/user/add', [
        '=name=tech',
        '=group=ops',
        '=password=t3ch-pass',
        '=address=192.168.88.0/24',
        '=comment=field technician',
      ]);
      expect(await trapOf(api.write('/user/add', ['=name=tech', '=group=read', '=password=x']))).to.equal(
        'failure: user with the same name already exists',
      );
      expect(await trapOf(api.write('/user/add', ['=name=ghost', '=group=nope', '=password=x']))).to.equal(
        'input does not match any value of group',
      );
      expect(await trapOf(api.write('/user/add', ['=name=nogroup', '=password=x']))).to.equal(
        'missing value(s) of argument(s) group',
      );
      const [tech] = await api.write('/user/print', ['?name=tech']);
      expect(tech).to.include({
        name: 'tech',
        group: 'ops',
        address: '192.168.88.0/24',
        comment: 'field technician',
        disabled: 'false',
      });
      expect(tech).to.not.have.property('password');
      expect(
        await trapOf(api.write('/user/get', [`=.id=${tech?.['.id']}`, '=value-name=password'])),
      ).to.equal('no such property password');

      // the group in use stays; the factory ones always stay
      expect(await trapOf(api.write('/user/group/remove', ['=numbers=ops']))).to.equal(
        'failure: group is used by some user',
      );
      expect(await trapOf(api.write('/user/group/remove', ['=numbers=full']))).to.equal(
        'failure: can not remove default group',
      );
      await api.write('/user/set', [`=.id=${tech?.['.id']}`, '=disabled=yes', '=group=read']);
      expect((await api.write('/user/print', ['?name=tech']))[0]).to.include({
        disabled: 'true',
        group: 'read',
      });
      await api.write('/user/remove', [`=.id=${tech?.['.id']}`]);
      await api.write('/user/group/remove', ['=numbers=ops']);
      expect((await api.write('/user/print')).map((u) => u.name)).to.deep.equal(['admin']);
    });

    it('logs in the users of /user whose group has the api policy, enabled, with their password', async () => {
      await api.write('/user/group/add', ['=name=no-api', '=policy=read,write']);
      await api.write('/user/add', ['=name=agent', '=group=write', '=password=ag-pass']);
      await api.write('/user/add', ['=name=viewer', '=group=no-api', '=password=v-pass']);
      const agent = await login(sim, 'agent', 'ag-pass');
      expect((await agent.write('/system/identity/print'))[0]).to.deep.equal({ name: 'MikroTik' });
      await agent.close();
      expect(await trapOf(login(sim, 'agent', 'wrong'))).to.equal('Username or password is invalid');
      expect(await trapOf(login(sim, 'viewer', 'v-pass'))).to.equal('Username or password is invalid');
      await api.write('/user/set', ['=numbers=agent', '=disabled=yes']);
      expect(await trapOf(login(sim, 'agent', 'ag-pass'))).to.equal('Username or password is invalid');
      // a new admin password is the one that counts from now on
      await api.write('/user/set', ['=numbers=admin', '=password=n3w']);
      expect(await trapOf(login(sim, 'admin', 'secret'))).to.equal('Username or password is invalid');
      await (await login(sim, 'admin', 'n3w')).close();
    });

    it('has the same /user menus in scripts (terminal commands)', async () => {
      const result = await sim.runScript(
        [
          '/user group add name=techs policy=read,write,api,test',
          '/user add name=ali group=techs password="p w" comment="from a script"',
          ':put [/user get [find name=ali] group]',
          ':put [:len [/user find]]',
        ].join('\n'),
      );
      expect(result).to.deep.equal({ ok: true, output: ['techs', '2'] });
      const dup = await sim.runScript('/user add name=ali group=read password=x');
      expect(dup.ok).to.equal(false);
      expect(dup.error).to.equal('failure: user with the same name already exists (line 1 column 1)');
      const badGroup = await sim.runScript('/user add name=bob group=nope password=x');
      expect(badGroup.error).to.equal('input does not match any value of group (line 1 column 1)');
      const unknown = await sim.runScript('/user add name=bob group=read colour=red');
      expect(unknown.error).to.match(/^expected end of command \(line 1 column \d+\)$/);
      await (await login(sim, 'ali', 'p w')).close();
    });

    it('keeps /ip firewall nat rules in order: place-before, set, enable/disable, remove', async () => {
      // the seeded router already has its own rules; ours come after them
      const seeded = (await api.write('/ip/firewall/nat/print')).map((r) => r['.id']);
      const nat = (args: string[]) => api.write('/ip/firewall/nat/add', args).then((r) => r[0]?.ret ?? '');
      const first = await nat([
        '=chain=srcnat',
        '=action=masquerade',
        '=out-interface=ether1',
        '=comment=internet',
      ]);
      const second = await nat([
        '=chain=dstnat',
        '=action=dst-nat',
        '=protocol=tcp',
        '=dst-port=8080',
        '=in-interface=ether1',
        '=dst-address=41.82.10.5',
        '=to-addresses=192.168.88.10',
        '=to-ports=80',
        '=comment=web',
      ]);
      const third = await nat([
        '=chain=dstnat',
        '=action=redirect',
        '=protocol=udp',
        '=dst-port=53',
        '=to-ports=53',
        `=place-before=${first}`,
        '=comment=dns',
      ]);
      let rows = await api.write('/ip/firewall/nat/print');
      // the new rule takes its place; its id is still the next one
      expect(rows.map((r) => r['.id'])).to.deep.equal([...seeded, third, first, second]);
      expect(parseInt(third.slice(1), 16)).to.be.greaterThan(parseInt(second.slice(1), 16));
      expect(rows.at(-1)).to.include({
        chain: 'dstnat',
        action: 'dst-nat',
        protocol: 'tcp',
        'dst-port': '8080',
        'in-interface': 'ether1',
        'dst-address': '41.82.10.5',
        'to-addresses': '192.168.88.10',
        'to-ports': '80',
        comment: 'web',
        disabled: 'false',
      });

      await api.write('/ip/firewall/nat/disable', [`=.id=${second}`]);
      expect(
        (await api.write('/ip/firewall/nat/print', ['?disabled=true'])).map((r) => r['.id']),
      ).to.deep.equal([second]);
      await api.write('/ip/firewall/nat/enable', [`=.id=${second}`]);
      await api.write('/ip/firewall/nat/set', [`=.id=${second}`, '=to-ports=8081', '=comment=web2']);
      rows = await api.write('/ip/firewall/nat/print', [`?.id=${second}`]);
      expect(rows[0]).to.include({ 'to-ports': '8081', comment: 'web2', disabled: 'false' });

      expect(await trapOf(nat(['=chain=srcnat', '=action=teleport']))).to.equal(
        'input does not match any value of action',
      );
      expect(await trapOf(nat(['=chain=srcnat', '=colour=red']))).to.equal('unknown parameter colour');
      expect(await trapOf(nat(['=chain=srcnat', '=place-before=*FFFF']))).to.equal('no such item');
      expect(await trapOf(nat(['=action=masquerade']))).to.equal('missing value(s) of argument(s) chain');

      await api.write('/ip/firewall/nat/remove', [`=.id=${third}`]);
      expect((await api.write('/ip/firewall/nat/print')).map((r) => r['.id'])).to.deep.equal([
        ...seeded,
        first,
        second,
      ]);

      // the same from a script, place-before with [find]
      const script = await sim.runScript(
        '/ip firewall nat add chain=srcnat action=src-nat to-addresses=10.0.0.1 place-before=[find comment=internet] comment=first',
      );
      expect(script).to.deep.equal({ ok: true, output: [] });
      rows = await api.write('/ip/firewall/nat/print');
      expect(rows.slice(seeded.length).map((r) => r.comment)).to.deep.equal(['first', 'internet', 'web2']);
    });

    it(`has :rndstr on v7 only${version.startsWith('7') ? '' : ' (v6: bad command name)'}`, async () => {
      const result = await sim.runScript(
        [
          ':local a [:rndstr length=24 from="abc123"]',
          ':local b [:rndstr]',
          ':put $a; :put [:len $a]; :put [:len $b]',
          ':put [:rndnum from=5 to=5]',
        ].join('\n'),
      );
      if (version.startsWith('6')) {
        expect(result.ok).to.equal(false);
        expect(result.error).to.equal('bad command name rndstr (line 1 column 11)');
        return;
      }
      expect(result.ok).to.equal(true);
      const [a, lenA, lenB, n] = result.output;
      expect(a).to.match(/^[abc123]{24}$/);
      expect([lenA, lenB, n]).to.deep.equal(['24', '16', '5']);
    });
  });
}

describe('routeros-sim container menus per version', () => {
  const runOn = async (version: string, source: string) => {
    const sim = await startSim({ version });
    try {
      return await sim.runScript(source);
    } finally {
      await sim.stop();
    }
  };

  it('names the envs list name= up to 7.19 and list= from 7.20, and has no container on v6', async () => {
    const byName = '/container/envs/add name=tn key=A value=1';
    const byList = '/container/envs/add list=tn key=A value=1';
    expect(await runOn('7.19', byName)).to.deep.equal({ ok: true, output: [] });
    expect((await runOn('7.19', byList)).error).to.equal('expected end of command (line 1 column 21)');
    expect(await runOn('7.20', byList)).to.deep.equal({ ok: true, output: [] });
    expect((await runOn('7.20', byName)).error).to.equal('expected end of command (line 1 column 21)');
    expect((await runOn('6.49.10', '/container envs add name=tn key=A value=1')).error).to.match(
      /^bad command name /,
    );
  });
});
