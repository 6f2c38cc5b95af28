import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnDist, type Spawned } from '../../support/spawn-process.js';
import { freePort } from '../../support/free-port.js';

describe('controller process', function () {
  this.timeout(60_000);
  let dir: string;
  const procs: Spawned[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tn-proc-'))));
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (port: number) => {
    const p = spawnDist('dist/controller/main.js', [], {
      PORT: String(port),
      TICKETNET_DB: `sqlite:${join(dir, 'db', 'ticketnet.db')}`,
      TICKETNET_DATA_DIR: dir,
      TICKETNET_LOG_LEVEL: 'info',
    });
    procs.push(p);
    return p;
  };

  it('starts twice on one SQLite file at once; both serve, one schema, one secret', async () => {
    const ports = [await freePort(), await freePort()] as const;
    const [a, b] = [start(ports[0]), start(ports[1])];
    await Promise.all([a.waitFor(/controller listening/), b.waitFor(/controller listening/)]);
    for (const port of ports) {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).to.equal(200);
    }
    // An account registered through one instance logs in through the other: same database, same JWT secret.
    const reg = await fetch(`http://127.0.0.1:${ports[0]}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x@example.com', password: 'abcd1234', name: 'X', kind: 'client' }),
    });
    expect(reg.status).to.equal(201);
    const { data } = (await reg.json()) as { data: { token: string } };
    const me = await fetch(`http://127.0.0.1:${ports[1]}/api/v1/auth/me`, {
      headers: { authorization: `Bearer ${data.token}` },
    });
    expect(me.status).to.equal(200);
  });

  it('stops cleanly on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const p = start(await freePort());
      await p.waitFor(/controller listening/);
      expect(await p.stop(signal), `${signal}: ${p.output()}`).to.equal(0);
      expect(p.output()).to.match(/controller stopped/);
    }
  });

  it('exits on SIGTERM even when nothing reads its output any more (dead log shipper)', async () => {
    const p = start(await freePort());
    await p.waitFor(/controller listening/);
    p.child.stdout!.destroy();
    p.child.stderr!.destroy();
    p.child.kill('SIGTERM');
    const code = await Promise.race([p.exited, new Promise((r) => setTimeout(() => r('hung'), 8000))]);
    expect(code).to.not.equal('hung');
  });

  it('lets an in-flight request finish during shutdown', async () => {
    const port = await freePort();
    const p = start(port);
    await p.waitFor(/controller listening/);
    // The server answers `100 Continue` once it holds the request: the signal lands while the
    // request is in flight, and its body is only sent after.
    const body = JSON.stringify({ email: 'y@example.com', password: 'abcd1234', name: 'Y', kind: 'client' });
    const req = request(`http://127.0.0.1:${port}/api/v1/auth/register`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const status = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.on('continue', resolve));
    p.child.kill('SIGTERM');
    req.end(body);
    expect(await status).to.equal(201);
    expect(await p.exited).to.equal(0);
  });

  it('refuses a bad configuration with a message naming the variable', async () => {
    const p = spawnDist('dist/controller/main.js', [], { PORT: 'abc', TICKETNET_DATA_DIR: dir });
    procs.push(p);
    expect(await p.exited).to.equal(1);
    expect(p.output()).to.match(/PORT/);
  });
});
