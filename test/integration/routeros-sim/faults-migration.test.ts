// The faults migration and return-to-local tests lean on: interrupted
// restores, impossible counts, unverifiable removals, backups still being
// written, the /file/read chunk cap, and wire-level trouble (fragments,
// noise, a router that shuts down).
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import { sentenceToStrings } from '../../routeros-sim/api-wire.js';
import { ROUTER_BUSY_MESSAGE } from '../../routeros-sim/faults.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

async function trapOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'resolved',
    (e: Error) => e.message,
  );
}

describe('routeros-sim faults for migration and return', () => {
  let sim: RouterSim;
  let api: RouterOSAPI;
  beforeEach(async () => {
    sim = await startSim({ version: '7.19', backupDelayMs: 5 });
    api = await connectApi(sim);
  });
  afterEach(async () => {
    await api.close().catch(() => undefined);
    await sim.stop();
  });

  it('failCommand afterCalls lets the first N matching calls through', async () => {
    sim.faults.set({
      failCommand: { path: '/ip/hotspot/user/add', message: 'failure: out of memory', afterCalls: 2 },
    });
    await api.write('/ip/hotspot/user/add', ['=name=r1']);
    await api.write('/ip/hotspot/user/add', ['=name=r2']);
    expect(await trapOf(api.write('/ip/hotspot/user/add', ['=name=r3']))).to.equal('failure: out of memory');
    expect(await trapOf(api.write('/ip/hotspot/user/add', ['=name=r4']))).to.equal('failure: out of memory');
    // other commands are not counted and not failed
    expect(await api.write('/ip/hotspot/user/print', ['?name=r2', '=.proplist=name'])).to.deep.equal([
      { name: 'r2' },
    ]);
  });

  it('countImpossible: count-only on hotspot users traps, a listing still works', async () => {
    sim.faults.set({ countImpossible: true });
    expect(await trapOf(api.write('/ip/hotspot/user/print', ['=count-only=']))).to.equal(ROUTER_BUSY_MESSAGE);
    expect((await api.write('/ip/hotspot/user/print', ['=.proplist=name'])).length).to.equal(13);
    expect(await api.write('/ip/hotspot/user/profile/print', ['=count-only='])).to.deep.equal([{ ret: '6' }]);
    sim.faults.set({ countImpossible: 'failure: busy' });
    expect(await trapOf(api.write('/ip/hotspot/user/print', ['=count-only=']))).to.equal('failure: busy');
  });

  it('removeUnverifiable: the removal applies, then every print of hotspot users traps', async () => {
    sim.faults.set({ removeUnverifiable: true });
    // before any removal prints work
    expect((await api.write('/ip/hotspot/user/print', ['=.proplist=.id'])).length).to.equal(13);
    const [victim] = await api.write('/ip/hotspot/user/print', ['?-default', '=.proplist=.id']);
    const before = sim.state.table('/ip/hotspot/user').size;
    expect(await api.write('/ip/hotspot/user/remove', [`=.id=${victim?.['.id'] ?? ''}`])).to.deep.equal([]);
    expect(sim.state.table('/ip/hotspot/user').size).to.equal(before - 1);
    expect(await trapOf(api.write('/ip/hotspot/user/print', ['=count-only=']))).to.equal(ROUTER_BUSY_MESSAGE);
    expect(await trapOf(api.write('/ip/hotspot/user/print'))).to.equal(ROUTER_BUSY_MESSAGE);
    sim.faults.clear();
    expect((await api.write('/ip/hotspot/user/print', ['=.proplist=.id'])).length).to.equal(12);
  });

  it('growingBackup: the file appears partial and reaches its size over a few polls', async () => {
    sim.faults.set({ growingBackup: 3 });
    await api.write('/system/backup/save', ['=name=grow', '=dont-encrypt=yes']);
    const full = (): number => sim.state.findFile('grow.backup')?.blob?.length ?? -1;
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [file] = await api.write('/file/print', ['?name=grow.backup', '=.proplist=size']);
      sizes.push(Number(file?.size));
    }
    expect(sizes[0]).to.be.lessThan(sizes[1] ?? 0);
    expect(sizes[1]).to.be.lessThan(sizes[2] ?? 0);
    expect(sizes[3]).to.equal(sizes[4]);
    expect(sizes[4]).to.equal(full());
    expect(full()).to.be.greaterThan(8192);
  });

  it('fileReadChunkCap: RouterOS refuses chunks above 32768 unless relaxed', async () => {
    sim.state.writeFile('big.bin', Buffer.alloc(100_000, 7));
    const raw = await RawClient.login(sim.port);
    const read = async (chunk: number): Promise<string> => {
      const reply = await raw.command(
        ['/file/read', '=file=big.bin', '=offset=0', `=chunk-size=${chunk}`, '.tag=r'],
        'r',
      );
      const first = reply[0] ?? [];
      return first[0] === '!trap' ? (first.find((w) => w.startsWith('=message=')) ?? '') : String(first[0]);
    };
    expect(await read(32768)).to.equal('!re');
    expect(await read(32769)).to.equal('=message=invalid value for argument chunk-size');
    sim.faults.set({ fileReadChunkCap: false });
    expect(await read(100_000)).to.equal('!re');
    sim.faults.set({ fileReadChunkCap: 1024 });
    expect(await read(1025)).to.equal('=message=invalid value for argument chunk-size');
    raw.close();
  });

  it('fragmentReplies: replies arrive in many small TCP writes and still decode', async () => {
    sim.faults.set({ fragmentReplies: 5 });
    const rows = await api.write('/ip/hotspot/user/print', ['=.proplist=name,profile']);
    expect(rows).to.have.length(13);
    const raw = await RawClient.open(sim.port);
    let chunks = 0;
    raw.socket.on('data', () => chunks++);
    const reply = await raw.command(['/login', '=name=admin', '=password=secret', '.tag=l'], 'l');
    expect(reply).to.deep.equal([['!done', '.tag=l']]);
    // "!done" + ".tag=l" + terminator is 15 bytes: at most 5 per write
    expect(chunks).to.be.at.least(3);
    raw.close();
  });

  it('noise: junk sentences on unknown tags and unknown reply words, real replies intact', async () => {
    const raw = await RawClient.login(sim.port);
    sim.faults.set({ noise: 1 });
    const seen: string[][] = [];
    for (let i = 0; i < 6; i++) {
      raw.send(['/system/identity/print', `.tag=q${i}`]);
      for (;;) {
        const s = sentenceToStrings(await raw.next());
        seen.push(s);
        if (s[0] === '!done' && s.includes(`.tag=q${i}`)) break;
      }
    }
    raw.close();
    const real = seen.filter(
      (s) => s.some((w) => /^\.tag=q\d$/.test(w)) && ['!re', '!done'].includes(s[0] ?? ''),
    );
    expect(real.filter((s) => s[0] === '!re')).to.have.length(6);
    const junk = seen.filter((s) => s.includes('=noise=yes'));
    expect(junk.length).to.be.greaterThan(0);
    for (const s of junk) {
      const unknownWord = !['!re', '!done', '!trap', '!fatal', '!empty'].includes(s[0] ?? '');
      const unknownTag = s.some((w) => w.startsWith('.tag=') && !/^\.tag=q\d$/.test(w));
      expect(unknownWord || unknownTag).to.equal(true);
    }
  });

  it('fatalAfter: once N commands are answered every connection gets an unsolicited !fatal', async () => {
    const raw = await RawClient.login(sim.port);
    const closed = new Promise<void>((resolve) => api.once('close', () => resolve()));
    sim.faults.set({ fatalAfter: { commands: 2, message: 'system is shutting down' } });
    await api.write('/system/identity/print');
    await raw.command(['/system/identity/print', '.tag=a'], 'a');
    // the raw client sent nothing more, yet receives the !fatal
    expect(sentenceToStrings(await raw.next())).to.deep.equal(['!fatal', 'system is shutting down']);
    await closed;
    await raw.next().then(
      () => expect.fail('connection should end'),
      (e: Error) => expect(e.message).to.equal('connection ended'),
    );
    // the router is back: a new connection works
    const again = await connectApi(sim);
    expect(await again.write('/system/identity/print')).to.have.length(1);
    await again.close();
  });
});
