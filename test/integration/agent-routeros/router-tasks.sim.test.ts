// The high-level tasks against the RouterOS simulator, on each version the
// agent must handle: 6.49 (FTP, no !empty), 7.16 (/file/read, no !empty) and
// 7.19 (/file/read, !empty).
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { COMMANDS } from '../../../protocol/commands.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import { exportHotspotUsers, ping, readFacts, saveBackup } from '../../../agent/routeros/router-tasks.js';
import { readFileViaApi, readFileViaFtp } from '../../../agent/routeros/fetch-router-file.js';
import { connectTo, startSim, SIM_SERIAL } from './support/sim.js';
import { oneTurn, expectRouterError, watchProcessFailures } from './support/helpers.js';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

for (const version of ['6.49', '7.16', '7.19']) {
  describe(`router tasks against the simulator, RouterOS ${version}`, () => {
    let sim: RouterSim;
    let conn: RouterConnection;
    let watch: ReturnType<typeof watchProcessFailures>;

    beforeEach(async () => {
      watch = watchProcessFailures();
      sim = await startSim({ version });
      conn = connectTo(sim);
    });

    afterEach(async () => {
      await conn.close();
      await sim.stop();
      await oneTurn();
      watch.assertNone();
      watch.restore();
    });

    it('reads the facts', async () => {
      const facts = await readFacts(conn);
      expect(COMMANDS['router.facts'].output.safeParse(facts).success, JSON.stringify(facts)).to.equal(true);
      expect(facts.serial).to.equal(SIM_SERIAL);
      expect(facts.routeros_version).to.equal(version);
      expect(facts.identity).to.equal('MikroTik');
      expect(facts.architecture).to.equal(sim.state.identity.board.architecture);
      expect(facts.free_hdd_bytes).to.equal(sim.state.freeHddBytes());
      expect(facts.total_hdd_bytes).to.equal(sim.state.identity.totalHddBytes);
      // the simulated router booted 3d4h17m before the simulator started
      expect(facts.uptime_seconds).to.be.within(
        3 * 86400 + 4 * 3600 + 17 * 60,
        3 * 86400 + 4 * 3600 + 18 * 60,
      );
      expect(facts.model).to.match(new RegExp(sim.state.identity.board.model));
    });

    it('pings', async () => {
      const { rtt_ms } = await ping(conn);
      expect(rtt_ms).to.be.a('number').and.to.be.at.least(0).and.below(1000);
    });

    it('prints nothing as [] whether the version answers !empty or not', async () => {
      expect(await conn.print('/ip/hotspot/user', { where: { name: 'no-such-voucher' } })).to.deep.equal([]);
      expect(await conn.count('/ip/hotspot/user', { name: 'no-such-voucher' })).to.equal(0);
    });

    it('exports the hotspot users and profiles', async () => {
      const out = await exportHotspotUsers(conn, { includeProfiles: true });
      expect(COMMANDS['hotspot.users.export'].output.safeParse(out).success).to.equal(true);
      const table = sim.state.table('/ip/hotspot/user').list();
      const vouchers = table.filter((r) => r.props.default !== 'true');
      expect(out.count).to.equal(vouchers.length).and.to.equal(25);
      expect(out.users.map((u) => u.name).sort()).to.deep.equal(vouchers.map((r) => r.props.name).sort());
      const first = vouchers[0]!.props;
      const exported = out.users.find((u) => u.name === first.name)!;
      expect(exported.password).to.equal(first.password || undefined);
      expect(exported.profile).to.equal(first.profile);
      expect(out.profiles?.map((p) => p.name)).to.include('1h-500F');
      expect(out.profiles?.find((p) => p.name === '1h-500F')?.rate_limit).to.equal('1M/2M');
    });

    it('saves a backup and brings back the exact bytes', async () => {
      // only 6.49 gets the FTP port: 7.x must fetch through /file/read, and
      // 6.49 has no /file/read, so success proves each took its own path
      const ftp = version === '6.49' ? { ftpPort: sim.ftpPort! } : {};
      const backup = await saveBackup(conn, { name: 'tn-test', pollIntervalMs: 30, ...ftp });
      const onRouter = sim.state.readFile('tn-test.backup');
      expect(onRouter, 'file on the simulated router').to.not.equal(undefined);
      // the bytes iconv-lite's win1252 decoding would have turned into U+FFFD
      expect([0x81, 0x8d, 0x8f, 0x90, 0x9d].some((b) => onRouter!.includes(b))).to.equal(true);
      expect(backup.file_name).to.equal('tn-test.backup');
      expect(backup.size).to.equal(onRouter!.length);
      expect(backup.sha256).to.equal(sha256(onRouter!));
      expect(Buffer.from(backup.content_base64, 'base64').equals(onRouter!)).to.equal(true);
      expect(COMMANDS['backup.save'].output.safeParse(backup).success).to.equal(true);
    });

    it('reads a file in /file/read chunks or by FTP, byte for byte', async () => {
      const blob = Buffer.from(Array.from({ length: 100_003 }, (_, i) => (i * 131 + (i >> 8)) & 0xff));
      sim.state.writeFile('big.bin', blob);
      if (version === '6.49') {
        expect((await readFileViaFtp(conn, 'big.bin', { ftpPort: sim.ftpPort! })).equals(blob)).to.equal(
          true,
        );
        await expectRouterError(readFileViaApi(conn, 'big.bin'), 'ROUTER_TRAP');
        return;
      }
      expect(
        (await readFileViaApi(conn, 'big.bin', { size: blob.length, chunkBytes: 4096 })).equals(blob),
      ).to.equal(true);
      // without a known size the read stops at the first short chunk
      expect((await readFileViaApi(conn, 'big.bin')).equals(blob)).to.equal(true);
    });

    it('reports a full flash as NO_SPACE', async () => {
      sim.faults.set({ outOfFlash: true });
      await expectRouterError(
        saveBackup(conn, { name: 'full', ftpPort: sim.ftpPort!, pollIntervalMs: 30 }),
        'NO_SPACE',
      );
    });

    it('reports a backup that never appears as a retryable ROUTER_TRAP', async () => {
      sim.faults.set({ loseBackup: true });
      const err = await expectRouterError(
        saveBackup(conn, { name: 'lost', ftpPort: sim.ftpPort!, pollIntervalMs: 30, settleTimeoutMs: 200 }),
        'ROUTER_TRAP',
      );
      expect(err.message).to.include('backup lost');
      expect(err.retryable).to.equal(true);
    });

    it('refuses an empty backup file', async () => {
      sim.faults.set({ emptyBackup: true });
      const err = await expectRouterError(
        saveBackup(conn, { name: 'empty', ftpPort: sim.ftpPort!, pollIntervalMs: 30 }),
        'BACKUP_EMPTY',
      );
      expect(err.message).to.include('empty');
    });
  });
}

describe('router faults from the simulator', () => {
  let sim: RouterSim;
  let conn: RouterConnection;
  let watch: ReturnType<typeof watchProcessFailures>;

  beforeEach(async () => {
    watch = watchProcessFailures();
    sim = await startSim({ version: '7.19' });
  });

  afterEach(async () => {
    await conn?.close();
    await sim.stop();
    await oneTurn();
    watch.assertNone();
    watch.restore();
  });

  it('wrong password → ROUTER_AUTH_FAILED', async () => {
    conn = connectTo(sim, { password: 'nope' });
    await expectRouterError(readFacts(conn), 'ROUTER_AUTH_FAILED');
  });

  it('silent drop → ROUTER_TIMEOUT within the timeout; the next call reconnects once the router is back', async () => {
    conn = connectTo(sim, { timeoutMs: 300 });
    await conn.connect();
    sim.faults.set({ dropSocketSilently: true });
    const started = Date.now();
    await expectRouterError(ping(conn), 'ROUTER_TIMEOUT');
    expect(Date.now() - started).to.be.below(1500);
    sim.faults.clear();
    expect((await readFacts(conn)).serial).to.equal(SIM_SERIAL);
  });

  it('connection reset mid-call → ROUTER_UNREACHABLE, then reconnects', async () => {
    conn = connectTo(sim);
    await conn.connect();
    sim.faults.set({ resetConnection: true });
    await expectRouterError(conn.print('/system/identity'), 'ROUTER_UNREACHABLE');
    sim.faults.clear();
    expect(await conn.print('/system/identity')).to.deep.equal([{ name: 'MikroTik' }]);
  });

  it('refused connections → ROUTER_UNREACHABLE', async () => {
    sim.faults.set({ refuseConnections: 'reset' });
    conn = connectTo(sim);
    await expectRouterError(ping(conn), 'ROUTER_UNREACHABLE');
  });

  it('a slow router within the timeout is fine', async () => {
    sim.faults.set({ delayMs: 150 });
    conn = connectTo(sim, { timeoutMs: 1000 });
    expect((await readFacts(conn)).routeros_version).to.equal('7.19');
  });

  it('a failing command → ROUTER_TRAP with the router message and category', async () => {
    sim.faults.set({
      failCommand: { path: '/ip/hotspot/user/print', message: 'failure: busy', category: 4 },
    });
    conn = connectTo(sim);
    const err = await expectRouterError(exportHotspotUsers(conn), 'ROUTER_TRAP');
    expect(err.message).to.include('failure: busy');
    expect(err.category).to.equal(4);
  });

  it('add, set, remove and count round-trip on the simulator', async () => {
    conn = connectTo(sim);
    const before = await conn.count('/ip/hotspot/user');
    const id = await conn.add('/ip/hotspot/user', {
      name: 'tn-1',
      password: 'p',
      profile: '1h-500F',
      comment: 'ticketnet:1',
    });
    expect(id).to.match(/^\*[0-9A-F]+$/);
    await conn.set('/ip/hotspot/user', id, { disabled: true });
    const [row] = await conn.print('/ip/hotspot/user', {
      where: { name: 'tn-1' },
      proplist: ['.id', 'disabled', 'comment'],
    });
    expect(row).to.deep.equal({ '.id': id, disabled: 'true', comment: 'ticketnet:1' });
    expect(await conn.count('/ip/hotspot/user')).to.equal(before + 1);
    const ids = (await conn.print('/ip/hotspot/user', { proplist: ['.id', 'default'] }))
      .filter((r) => r.default !== 'true')
      .map((r) => r['.id']!);
    await conn.remove('/ip/hotspot/user', ids);
    expect(await conn.count('/ip/hotspot/user')).to.equal(1);
  });

  it('exports 15,000 users', async function () {
    this.timeout(60_000);
    await sim.stop();
    sim = await startSim({ version: '7.19', seed: { hotspotUsers: 15_000, salesScripts: 0 } });
    conn = connectTo(sim);
    const out = await exportHotspotUsers(conn);
    expect(out.count).to.equal(15_000);
    expect(new Set(out.users.map((u) => u.name)).size).to.equal(15_000);
  });
});
