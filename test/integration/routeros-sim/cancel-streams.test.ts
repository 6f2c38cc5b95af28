// Long-running commands (listen, print follow, ping without count) and /cancel.
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { RawClient, connectApi, startSim } from './sim-helpers.js';

describe('routeros-sim /cancel and streams', () => {
  let sim: RouterSim;
  let api: RouterOSAPI;
  before(async () => {
    sim = await startSim({ version: '7.19' });
    api = await connectApi(sim);
  });
  after(async () => {
    await api.close();
    await sim.stop();
  });

  it('cancels a running command with !trap category=2 interrupted, then !done on both tags', async () => {
    const raw = await RawClient.login(sim.port);
    raw.send(['/ping', '=address=8.8.8.8', '=interval=20ms', '.tag=p']);
    expect((await raw.next()).map(String).slice(0, 2)).to.deep.equal(['!re', '.tag=p']);
    raw.send(['/cancel', '=tag=p', '.tag=c']);
    const tail: string[][] = [];
    for (;;) {
      const s = (await raw.next()).map(String);
      if (s[0] === '!re') continue;
      tail.push(s);
      if (s[1] === '.tag=c') break;
    }
    expect(tail).to.deep.equal([
      ['!trap', '.tag=p', '=category=2', '=message=interrupted'],
      ['!done', '.tag=p'],
      ['!done', '.tag=c'],
    ]);
    raw.close();
  });

  it('streams /listen changes to node-routeros and stops on stream.stop()', async () => {
    const seen: Array<Record<string, string>> = [];
    const stream = api.stream(
      ['/ip/hotspot/user/listen'],
      (err: Error | null, packet: Record<string, string>) => {
        if (!err && packet) seen.push(packet);
      },
    );
    await new Promise((r) => setTimeout(r, 50));
    const [ret] = await api.write('/ip/hotspot/user/add', ['=name=live01', '=profile=1h-500F']);
    await api.write('/ip/hotspot/user/remove', [`=.id=${ret?.ret ?? ''}`]);
    await new Promise((r) => setTimeout(r, 50));
    await stream.stop();
    expect(seen.map((p) => p.name ?? p['.dead'])).to.deep.equal(['live01', 'true']);
  });

  it('streams print follow-only and ping through node-routeros until stopped', async () => {
    const followed: Array<Record<string, string>> = [];
    const follow = api.stream(
      ['/ip/hotspot/user/print', '=follow-only=', '?profile=1d-2000F'],
      (err: Error | null, p: Record<string, string>) => {
        if (!err && p) followed.push(p);
      },
    );
    await new Promise((r) => setTimeout(r, 30));
    await api.write('/ip/hotspot/user/add', ['=name=follow01', '=profile=1d-2000F']);
    await api.write('/ip/hotspot/user/add', ['=name=follow02', '=profile=1h-500F']);
    await new Promise((r) => setTimeout(r, 50));
    await follow.stop();
    expect(followed.map((p) => p.name)).to.deep.equal(['follow01']);

    const pings: Array<Record<string, string>> = [];
    const stream = api.stream(
      ['/ping', '=address=10.5.50.1', '=interval=20ms'],
      (err: Error | null, p: Record<string, string>) => {
        if (!err && p) pings.push(p);
      },
    );
    await new Promise((r) => setTimeout(r, 120));
    await stream.stop();
    const count = pings.length;
    expect(count).to.be.at.least(3);
    expect(pings[0]).to.include({ seq: '0', host: '10.5.50.1' });
    await new Promise((r) => setTimeout(r, 60));
    expect(pings.length).to.equal(count);

    const unreachable = await api.write('/ping', ['=address=192.0.2.1', '=count=2', '=interval=10ms']);
    expect(unreachable.map((p) => p.status)).to.deep.equal(['timeout', 'timeout']);
  });
});
