// Long-running commands (listen, print follow, ping without count) and /cancel.
import { expect } from 'chai';
import type { RouterOSAPI } from 'node-routeros';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { waitFor } from '../../support/wait-for.js';
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

  // A stream is listening once the simulator's table has one more change listener.
  const users = () => sim.state.table('/ip/hotspot/user');
  const listening = async (before: number) =>
    waitFor(() => users().listenerCount('change') > before, { what: 'the stream to listen' });

  it('streams /listen changes to node-routeros and stops on stream.stop()', async () => {
    const seen: Array<Record<string, string>> = [];
    const before = users().listenerCount('change');
    const stream = api.stream(
      ['/ip/hotspot/user/listen'],
      (err: Error | null, packet: Record<string, string>) => {
        if (!err && packet) seen.push(packet);
      },
    );
    await listening(before);
    const [ret] = await api.write('/ip/hotspot/user/add', ['=name=live01', '=profile=1h-500F']);
    await api.write('/ip/hotspot/user/remove', [`=.id=${ret?.ret ?? ''}`]);
    await waitFor(() => seen.length >= 2, { what: 'two changes' });
    await stream.stop();
    expect(users().listenerCount('change')).to.equal(before);
    expect(seen.map((p) => p.name ?? p['.dead'])).to.deep.equal(['live01', 'true']);
  });

  it('streams print follow-only and ping through node-routeros until stopped', async () => {
    const followed: Array<Record<string, string>> = [];
    const before = users().listenerCount('change');
    const follow = api.stream(
      ['/ip/hotspot/user/print', '=follow-only=', '?profile=1d-2000F'],
      (err: Error | null, p: Record<string, string>) => {
        if (!err && p) followed.push(p);
      },
    );
    await listening(before);
    await api.write('/ip/hotspot/user/add', ['=name=follow01', '=profile=1d-2000F']);
    await api.write('/ip/hotspot/user/add', ['=name=follow02', '=profile=1h-500F']);
    // Changes arrive in order: once follow03 is in, follow02 would have come before it.
    await api.write('/ip/hotspot/user/add', ['=name=follow03', '=profile=1d-2000F']);
    await waitFor(() => followed.some((p) => p.name === 'follow03'), { what: 'follow03' });
    await follow.stop();
    expect(followed.map((p) => p.name)).to.deep.equal(['follow01', 'follow03']);

    const pings: Array<Record<string, string>> = [];
    const stream = api.stream(
      ['/ping', '=address=10.5.50.1', '=interval=20ms'],
      (err: Error | null, p: Record<string, string>) => {
        if (!err && p) pings.push(p);
      },
    );
    await waitFor(() => pings.length >= 3, { what: 'three pings' });
    await stream.stop();
    const count = pings.length;
    expect(pings[0]).to.include({ seq: '0', host: '10.5.50.1' });
    // The subject: no ping after the stop, watched over three ping intervals.
    await new Promise((r) => setTimeout(r, 60));
    expect(pings.length).to.equal(count);

    const unreachable = await api.write('/ping', ['=address=192.0.2.1', '=count=2', '=interval=10ms']);
    expect(unreachable.map((p) => p.status)).to.deep.equal(['timeout', 'timeout']);
  });
});
