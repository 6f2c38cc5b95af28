// RouterOS script execution: /import of an uploaded .rsc, /system/script run,
// sim.runScript; errors name their line and keep what already ran.
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { connectApi, ftpTransfer, startSim } from './sim-helpers.js';

const PROVISIONING = `# ticketnet provisioning (enrolment)
:local radiusHost "10.66.0.1"
:local secret "s3cr\\"t"
/radius
:if ([:len [find where address=$radiusHost]] = 0) do={
  add address=$radiusHost secret=$secret service=hotspot \\
      authentication-port=1812 accounting-port=1813 timeout=3s comment="ticketnet:nas"
} else={
  :log info "ticketnet: radius entry already present"
}
/radius incoming set accept=yes port=3799
/ip hotspot profile set [find name=hsprof1] use-radius=yes radius-accounting=yes radius-interim-update=5m
:delay 1s
:log info "ticketnet: provisioning applied"
`;

function radiusEntries(sim: RouterSim): Array<Record<string, string>> {
  return sim.state
    .table('/radius')
    .list()
    .map((r) => r.props);
}

function profile(sim: RouterSim, name: string): Record<string, string> {
  return sim.state.table('/ip/hotspot/profile').findBy('name', name)?.props ?? {};
}

function userNames(sim: RouterSim): string[] {
  return sim.state
    .table('/ip/hotspot/user')
    .list()
    .map((u) => u.props.name ?? '');
}

async function trapOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'resolved',
    (e: Error) => e.message,
  );
}

describe('routeros-sim script execution', () => {
  let sim: RouterSim;
  let api: RouterOSAPI;
  beforeEach(async () => {
    sim = await startSim({ version: '7.19', ftpPort: 0 });
    api = await connectApi(sim);
  });
  afterEach(async () => {
    await api.close();
    await sim.stop();
  });

  it('applies a provisioning script uploaded with /file add and run by /import, idempotently', async () => {
    await api.write('/file/add', ['=name=ticketnet.rsc', `=contents=${PROVISIONING}`]);
    expect(await api.write('/import', ['=file-name=ticketnet.rsc'])).to.deep.equal([]);
    const [entry] = radiusEntries(sim);
    expect(radiusEntries(sim)).to.have.length(1);
    expect(entry).to.include({
      address: '10.66.0.1',
      secret: 's3cr"t',
      service: 'hotspot',
      'authentication-port': '1812',
      'accounting-port': '1813',
      timeout: '3s',
      comment: 'ticketnet:nas',
    });
    expect(profile(sim, 'hsprof1')).to.include({
      'use-radius': 'true',
      'radius-accounting': 'true',
      'radius-interim-update': '5m',
    });
    expect(sim.state.table('/radius/incoming').single().props).to.include({ accept: 'true', port: '3799' });

    // the :if guard makes a second run add nothing
    await api.write('/import', ['=file-name=ticketnet.rsc']);
    expect(radiusEntries(sim)).to.have.length(1);
    const logs = sim.state
      .table('/log')
      .list()
      .map((l) => l.props.message);
    expect(logs).to.include('ticketnet: radius entry already present');
    expect(logs.filter((m) => m === 'ticketnet: provisioning applied')).to.have.length(2);
  });

  it('imports a file uploaded by FTP, and runs the same script from /system/script', async () => {
    const put = await ftpTransfer(sim.ftpPort ?? 0, {
      stor: 'prov.rsc',
      data: Buffer.from(PROVISIONING, 'latin1'),
    });
    expect(put.replies.at(-2)).to.match(/^226/);
    await api.write('/import', ['=file-name=prov.rsc']);
    expect(radiusEntries(sim)).to.have.length(1);

    await sim.runScript(
      '/radius remove [find comment~"ticketnet"]\n/ip hotspot profile set hsprof1 use-radius=no',
    );
    expect(radiusEntries(sim)).to.have.length(0);
    const [added] = await api.write('/system/script/add', ['=name=tn-provision', `=source=${PROVISIONING}`]);
    await api.write('/system/script/run', [`=.id=${added?.ret ?? ''}`]);
    expect(radiusEntries(sim)).to.have.length(1);
    expect(profile(sim, 'hsprof1')['use-radius']).to.equal('true');
  });

  it('stops at a failing command with its line, keeping the changes made before', async () => {
    const script = [
      '/ip hotspot user add name=tn-one password=1',
      '/ip hotspot user add name=tn-two password=2',
      '/ip hotspot user add name=tn-one password=3',
      '/ip hotspot user add name=tn-three password=4',
    ].join('\n');
    await api.write('/file/add', ['=name=users.rsc', `=contents=${script}`]);
    const msg = await trapOf(api.write('/import', ['=file-name=users.rsc']));
    expect(msg).to.equal('Script Error: failure: already have user with this name (line 3 column 1)');
    expect(userNames(sim)).to.include.members(['tn-one', 'tn-two']);
    expect(userNames(sim)).to.not.include('tn-three');

    const [added] = await api.write('/system/script/add', ['=name=bad', `=source=${script}`]);
    expect(await trapOf(api.write('/system/script/run', [`=.id=${added?.ret ?? ''}`]))).to.equal(
      'failure: already have user with this name (line 1 column 1)',
    );
  });

  it('reports an unknown property or command as RouterOS does, at its line and column', async () => {
    const typo = await sim.runScript(
      '/ip hotspot user add name=a\n/ip hotspot user add name=b limit-uptme=1h',
    );
    expect(typo).to.include({ ok: false, error: 'expected end of command (line 2 column 29)' });
    expect(userNames(sim)).to.include('a').and.not.include('b');
    const badPath = await sim.runScript('/ip hotspot profil set hsprof1 use-radius=yes');
    expect(badPath.error).to.equal('bad command name profil (line 1 column 13)');
    // the API traps the same typo as an unknown parameter
    expect(await trapOf(api.write('/ip/hotspot/user/add', ['=name=c', '=limit-uptme=1h']))).to.equal(
      'unknown parameter limit-uptme',
    );
  });

  it('runs nothing when the script does not parse', async () => {
    const result = await sim.runScript('/ip hotspot user add name=x\n:if ($a = 1) do={ :put "x"');
    expect(result.ok).to.equal(false);
    expect(result.error).to.match(/^expected closing brace \(line 2 column \d+\)$/);
    expect(userNames(sim)).to.not.include('x');
  });

  it('applies failCommand inside scripts, also after N calls', async () => {
    sim.faults.set({ failCommand: { path: '/radius/add', message: 'failure: radius busy' } });
    const result = await sim.runScript(
      '/ip hotspot profile set hsprof1 use-radius=yes\n/radius add address=10.1.1.1 secret=x service=hotspot',
    );
    expect(result).to.include({ ok: false, error: 'failure: radius busy (line 2 column 1)', line: 2 });
    expect(profile(sim, 'hsprof1')['use-radius']).to.equal('true');
    expect(radiusEntries(sim)).to.have.length(0);

    sim.faults.replace({
      failCommand: { path: '/ip/hotspot/user/add', message: 'failure: interrupted', afterCalls: 2 },
    });
    const restore = await sim.runScript(
      ':for i from=1 to=5 do={ /ip hotspot user add name=("r" . $i) password=$i }',
    );
    expect(restore.error).to.equal('failure: interrupted (line 1 column 25)');
    expect(userNames(sim).filter((n) => /^r\d$/.test(n))).to.deep.equal(['r1', 'r2']);
  });

  it('supports the export layout, find variants, :do on-error, :foreach, :local and string escapes', async () => {
    const result = await sim.runScript(`/ip hotspot user profile
add name="tn-2h" rate-limit=1M/2M shared-users=1
/ip hotspot user
add name=tn-a password=a profile=tn-2h comment="ticketnet:a"
add name=tn-b password=b profile=tn-2h comment="ticketnet:b" disabled=yes
add name=tn-c password=c comment="other"
:local n [:len [find comment~"ticketnet"]]
:put "found $n"
:put [:len [find where name="tn-a" and !disabled]]
:put [:len [find name=tn-b disabled=yes]]
:put [get [find name=tn-a] profile]
:foreach u in=[find comment~"^ticketnet:"] do={ set $u comment=("seen " . [get $u name]) }
:do { add name=tn-a } on-error={ :put "duplicate caught" }
:put [print count-only where comment~"seen"]
/ip/hotspot/user/remove [find name=tn-c]
:put "tab\\there \\"quoted\\" \\$notavar"
`);
    expect(result.error).to.equal(undefined);
    expect(result.output).to.deep.equal([
      'found 2',
      '1',
      '1',
      'tn-2h',
      'duplicate caught',
      '2',
      'tab\there "quoted" $notavar',
    ]);
    const byName = (n: string): Record<string, string> | undefined =>
      sim.state.table('/ip/hotspot/user').findBy('name', n)?.props;
    expect(byName('tn-a')?.comment).to.equal('seen tn-a');
    expect(byName('tn-c')).to.equal(undefined);
    expect(sim.state.table('/ip/hotspot/user/profile').findBy('name', 'tn-2h')?.props['rate-limit']).to.equal(
      '1M/2M',
    );
  });

  it('interpolates $[command] in strings and knows /log and the walled garden', async () => {
    const result = await sim.runScript(`:global site [/system identity get name]
/ip hotspot walled-garden add dst-host="pay.example.com" comment="ticketnet"
/log info "walled garden on $[/system identity get name]: $[:len [/ip hotspot walled-garden find]] entry"
:put "site=$site"`);
    expect(result).to.deep.equal({ ok: true, output: ['site=MikroTik'] });
    expect(sim.state.table('/log').list().at(-1)?.props).to.include({
      topics: 'script,info',
      message: 'walled garden on MikroTik: 1 entry',
    });
    expect(sim.state.globals.get('site')).to.equal('MikroTik');
  });

  it('accepts /ip/hotspot/user/add in scripts on v7 only', async () => {
    expect((await sim.runScript('/ip/hotspot/user/add name=v7style')).ok).to.equal(true);
    await api.close();
    await sim.stop();
    sim = await startSim({ version: '6.49' });
    api = await connectApi(sim);
    const slash = await sim.runScript('/ip/hotspot/user/add name=v6style');
    expect(slash.error).to.equal('bad command name ip/hotspot/user/add (line 1 column 1)');
    expect((await sim.runScript('/ip hotspot user add name=v6style')).ok).to.equal(true);
    // RouterOS 6 prints an import failure without the "Script Error:" prefix
    await api.write('/file/add', ['=name=x.rsc', '=contents=/ip hotspot user add name=v6style']);
    expect(await trapOf(api.write('/import', ['=file-name=x.rsc']))).to.equal(
      'failure: already have user with this name (line 1 column 1)',
    );
  });
});
