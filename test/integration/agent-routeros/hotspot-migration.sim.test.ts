// The catalogue commands of the migration to RADIUS and of the return to local accounts, run as the
// executor runs them (params and output checked by the protocol) against the RouterOS simulator on
// 6.49 (no !empty) and 7.19 (!empty), 300 vouchers each: inventory, removal between two counts
// under the faults that make counts or removals lie, and the idempotent restore of a backup.
import { expect } from 'chai';
import type { HotspotProfile, HotspotUser } from '../../../protocol/index.js';
import { parseDuration } from '../../routeros-sim/ros-format.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import { connectTo, startSim } from './support/sim.js';
import { oneTurn, watchProcessFailures } from './support/helpers.js';
import { outputOf, recordCalls, runCommand } from './support/run-command.js';

type User = HotspotUser;
type Profile = HotspotProfile;
interface Exported {
  users: User[];
  profiles?: Profile[];
  count: number;
}
interface Removed {
  count_before: number | null;
  count_after: number | null;
  count_error?: string;
  requested: number;
  absent: number;
  spared: number;
}

const VOUCHERS = 300;
const BATCH = 40;

/** The user as a backup restores it: no usage counters. */
function withoutUsage(u: User): User {
  const { uptime_seconds: _u, bytes_in: _i, bytes_out: _o, ...rest } = u;
  return rest;
}

const byName = <T extends { name: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

function batches<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

for (const version of ['6.49', '7.19']) {
  describe(`hotspot migration and return commands against the simulator, RouterOS ${version}`, () => {
    let sim: RouterSim;
    let conn: RouterConnection;
    let watch: ReturnType<typeof watchProcessFailures>;

    beforeEach(async () => {
      watch = watchProcessFailures();
      sim = await startSim({ version, seed: { hotspotUsers: VOUCHERS, salesScripts: 0 } });
      conn = connectTo(sim);
    });

    afterEach(async () => {
      await conn.close();
      await sim.stop();
      await oneTurn();
      watch.assertNone();
      watch.restore();
    });

    const table = () => sim.state.table('/ip/hotspot/user');
    const vouchers = () =>
      table()
        .list()
        .filter((r) => r.props.default !== 'true');
    const onRouter = (name: string) => table().findBy('name', name) !== undefined;
    /** The whole user table as stored, ids included, in name order. */
    const snapshot = () =>
      table()
        .list()
        .map((r): Record<string, string> => ({ ...r.props, '.id': String(r.id) }))
        .sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));

    const exportAll = () => outputOf<Exported>(conn, 'hotspot.users.export', { include_profiles: true });
    const remove = (names: string[]) => outputOf<Removed>(conn, 'hotspot.users.remove', { names });
    const restore = (users: User[]) =>
      outputOf<{ added: number; updated: number }>(conn, 'hotspot.users.restore', { users });

    describe('hotspot.users.export', () => {
      it('adds the usage counters of used vouchers, and leaves them out when 0', async () => {
        const out = await exportAll();
        expect(out.count).to.equal(VOUCHERS);
        expect(out.users.map((u) => u.name)).to.not.include('default-trial');
        const used = out.users.filter((u) => u.uptime_seconds !== undefined);
        expect(used.length).to.be.within(30, 270);
        for (const u of out.users) {
          const props = table().findBy('name', u.name)!.props;
          const uptime = parseDuration(props.uptime ?? '0s');
          expect(u.uptime_seconds).to.equal(uptime === 0 ? undefined : uptime);
          expect(u.bytes_in).to.equal(props['bytes-in'] === '0' ? undefined : Number(props['bytes-in']));
          expect(u.bytes_out).to.equal(props['bytes-out'] === '0' ? undefined : Number(props['bytes-out']));
        }
        // 1h-500F users can only have used up to their hour
        const hourly = used.filter((u) => u.profile === '1h-500F');
        for (const u of hourly) expect(u.uptime_seconds).to.be.within(60, 3600);
        const calls = recordCalls(conn);
        await exportAll();
        expect(calls[0]?.join(' ')).to.match(/=\.proplist=.*uptime,bytes-in,bytes-out/);
      });
    });

    describe('hotspot.users.names and hotspot.users.count', () => {
      it('lists every voucher name, without default-trial, from one print of name,default', async () => {
        const calls = recordCalls(conn);
        const out = await outputOf<{ names: string[]; count: number }>(conn, 'hotspot.users.names', {});
        expect(out.count).to.equal(VOUCHERS).and.to.equal(out.names.length);
        expect(out.names).to.deep.equal(vouchers().map((r) => r.props.name));
        expect(out.names).to.not.include('default-trial');
        expect(calls).to.deep.equal([['/ip/hotspot/user/print', '=.proplist=name,default']]);
      });

      it('leaves out a user named default-trial and any default=true user', async () => {
        table().insert({ name: 'zz-builtin', default: 'true', profile: 'default' });
        const trial = table().findBy('name', 'default-trial')!;
        table().update(trial, { default: 'false' });
        const out = await outputOf<{ names: string[] }>(conn, 'hotspot.users.names', {});
        expect(out.names).to.not.include('default-trial').and.not.include('zz-builtin');
        expect(out.names).to.have.length(VOUCHERS);
      });

      it('counts all users with count-only, default-trial included', async () => {
        const calls = recordCalls(conn);
        expect(await outputOf(conn, 'hotspot.users.count', {})).to.deep.equal({ count: VOUCHERS + 1 });
        expect(calls).to.deep.equal([['/ip/hotspot/user/print', '=count-only=']]);
      });

      it('fails the count with ROUTER_TRAP when count-only traps', async () => {
        sim.faults.set({ countImpossible: 'failure: busy' });
        const run = await runCommand(conn, 'hotspot.users.count', {});
        expect(run.status).to.equal('FAILED');
        if (run.status === 'FAILED') expect(run.fault).to.include({ code: 'ROUTER_TRAP', retryable: false });
        if (run.status === 'FAILED') expect(run.fault.message).to.contain('failure: busy');
      });
    });

    describe('hotspot.users.remove', () => {
      it('removes the named vouchers, spares default-trial, counts the absent ones', async () => {
        const names = vouchers()
          .slice(0, 50)
          .map((r) => r.props.name!);
        const calls = recordCalls(conn);
        const out = await remove([...names, 'default-trial', 'absent-1', 'absent-2']);
        expect(out).to.deep.equal({
          count_before: VOUCHERS + 1,
          count_after: VOUCHERS + 1 - 50,
          requested: 50,
          absent: 2,
          spared: 1,
        });
        expect(onRouter('default-trial')).to.equal(true);
        for (const name of names) expect(onRouter(name), name).to.equal(false);
        expect(calls.map((c) => c[0])).to.deep.equal([
          '/ip/hotspot/user/print',
          '/ip/hotspot/user/print',
          '/ip/hotspot/user/remove',
          '/ip/hotspot/user/print',
        ]);
        // The router matches the batch's names (one OR query), not a listing of every user.
        const query = calls[1]!;
        expect(query.slice(0, 2)).to.deep.equal(['/ip/hotspot/user/print', '=.proplist=.id,name,default']);
        expect(query.filter((w) => w.startsWith('?name='))).to.have.length(53);
        expect(query.at(-1)).to.equal(`?#${'|'.repeat(52)}`);
        expect(calls[2]?.[1]?.split(',')).to.have.length(50);
      });

      it('sends at most 100 ids per remove, and does no harm when sent again', async () => {
        const names = vouchers()
          .slice(0, 250)
          .map((r) => r.props.name!);
        const calls = recordCalls(conn);
        const first = await remove(names);
        expect(first).to.include({
          count_before: VOUCHERS + 1,
          count_after: VOUCHERS + 1 - 250,
          requested: 250,
        });
        const removes = calls.filter((c) => c[0] === '/ip/hotspot/user/remove');
        expect(removes.map((c) => c[1]?.split(',').length)).to.deep.equal([100, 100, 50]);
        const state = snapshot();
        // the controller re-sends the same work after a lost link, under a new command id
        const again = await remove(names);
        expect(again).to.deep.equal({
          count_before: VOUCHERS + 1 - 250,
          count_after: VOUCHERS + 1 - 250,
          requested: 0,
          absent: 250,
          spared: 0,
        });
        expect(snapshot()).to.deep.equal(state);
      });

      it('spares a default=true user whatever its name', async () => {
        table().insert({ name: 'trial-2', default: 'true', profile: 'default' });
        const out = await remove(['trial-2', vouchers()[0]!.props.name!]);
        expect(out).to.include({ requested: 1, spared: 1, absent: 0 });
        expect(onRouter('trial-2')).to.equal(true);
      });

      it('countImpossible: removes nothing, both counts null with the router message', async () => {
        sim.faults.set({ countImpossible: true });
        const before = snapshot();
        const out = await remove(vouchers().map((r) => r.props.name!));
        expect(out.count_before).to.equal(null);
        expect(out.count_after).to.equal(null);
        expect(out.count_error).to.contain('action timed out');
        expect(out).to.include({ requested: 0, absent: 0, spared: 0 });
        expect(snapshot()).to.deep.equal(before);
      });

      it('removeUnverifiable: the users are removed, count_after is null', async () => {
        sim.faults.set({ removeUnverifiable: 'failure: database busy' });
        const names = vouchers()
          .slice(0, 30)
          .map((r) => r.props.name!);
        const out = await remove(names);
        expect(out).to.deep.equal({
          count_before: VOUCHERS + 1,
          count_after: null,
          count_error: '/ip/hotspot/user/print: failure: database busy',
          requested: 30,
          absent: 0,
          spared: 0,
        });
        expect(table().size).to.equal(VOUCHERS + 1 - 30);
        for (const name of names) expect(onRouter(name)).to.equal(false);
      });

      it('stallRemovalsAfter: the counts show fewer removals than requested', async () => {
        sim.faults.set({ stallRemovalsAfter: 5 });
        const out = await remove(
          vouchers()
            .slice(0, 40)
            .map((r) => r.props.name!),
        );
        expect(out.requested).to.equal(40);
        expect(out.count_before! - out.count_after!).to.equal(5);
        expect(table().size).to.equal(VOUCHERS + 1 - 5);
      });

      it('fails with ROUTER_TRAP when the removal itself traps', async () => {
        sim.faults.set({ failCommand: { path: '/ip/hotspot/user/remove', message: 'failure: busy' } });
        const run = await runCommand(conn, 'hotspot.users.remove', { names: [vouchers()[0]!.props.name] });
        expect(run.status).to.equal('FAILED');
        if (run.status === 'FAILED') expect(run.fault.code).to.equal('ROUTER_TRAP');
        expect(table().size).to.equal(VOUCHERS + 1);
      });
    });

    describe('hotspot.profiles.restore', () => {
      it('sets the profiles that exist, adds the others, and ends the same when sent again', async () => {
        const profiles: Profile[] = [
          { name: '1h-500F', rate_limit: '2M/3M', shared_users: 2 },
          { name: 'week-pass', rate_limit: '4M/8M', shared_users: 1, session_timeout: 7 * 86400 },
          { name: '3h-1000F' },
        ];
        expect(await outputOf(conn, 'hotspot.profiles.restore', { profiles })).to.deep.equal({
          added: 1,
          updated: 2,
        });
        const profilesTable = sim.state.table('/ip/hotspot/user/profile');
        const state = profilesTable.list().map((r) => ({ id: r.id, ...r.props }));
        expect(await outputOf(conn, 'hotspot.profiles.restore', { profiles })).to.deep.equal({
          added: 0,
          updated: 3,
        });
        expect(profilesTable.list().map((r) => ({ id: r.id, ...r.props }))).to.deep.equal(state);
        const out = await exportAll();
        expect(out.profiles?.find((p) => p.name === '1h-500F')).to.deep.equal({
          name: '1h-500F',
          rate_limit: '2M/3M',
          shared_users: 2,
        });
        expect(out.profiles?.find((p) => p.name === 'week-pass')).to.deep.equal(profiles[1]);
        // a profile given with its name only is left as it was
        expect(out.profiles?.find((p) => p.name === '3h-1000F')?.rate_limit).to.equal('1M/2M');
      });
    });

    describe('hotspot.users.restore', () => {
      it('is idempotent: the same batch twice gives the same router state', async () => {
        const backup = (await exportAll()).users.slice(0, BATCH);
        // some users are gone, one was changed since the backup
        await remove(backup.slice(0, 25).map((u) => u.name));
        const changed = table().findBy('name', backup[30]!.name)!;
        table().update(changed, { password: 'changed', disabled: 'true', comment: 'edited' });

        expect(await restore(backup)).to.deep.equal({ added: 25, updated: 15 });
        const state = snapshot();
        expect(await restore(backup)).to.deep.equal({ added: 0, updated: BATCH });
        expect(snapshot()).to.deep.equal(state);
        const again = await exportAll();
        expect(
          byName(again.users.filter((u) => backup.some((b) => b.name === u.name))).map(withoutUsage),
        ).to.deep.equal(byName(backup).map(withoutUsage));
      });

      it('reads the existing names once per batch, then one add or set per user', async () => {
        const backup = (await exportAll()).users.slice(0, BATCH);
        await remove(backup.slice(0, 10).map((u) => u.name));
        const calls = recordCalls(conn);
        await restore(backup);
        expect(calls.map((c) => c[0])).to.deep.equal([
          '/ip/hotspot/user/print',
          ...backup.map((_, i) => (i < 10 ? '/ip/hotspot/user/add' : '/ip/hotspot/user/set')),
        ]);
        const add = calls[1]!;
        expect(add).to.include('=limit-uptime=' + `${backup[0]!.limit_uptime}s`);
        expect(add.filter((w) => w.startsWith('=uptime') || w.startsWith('=bytes-'))).to.deep.equal([]);
      });

      it('round-trips an export: remove all, restore in batches of 40, export again', async () => {
        // a few users that use every field
        const [a, b, c] = vouchers();
        table().update(a!, { disabled: 'true', comment: 'suspendu' });
        table().update(b!, { 'limit-bytes-total': '1073741824', password: '' });
        table().update(c!, { 'limit-uptime': '0s' });
        const first = await exportAll();
        expect(first.count).to.equal(VOUCHERS);

        const removed = await remove(first.users.map((u) => u.name));
        expect(removed).to.include({ count_before: VOUCHERS + 1, count_after: 1, requested: VOUCHERS });
        expect(await outputOf(conn, 'hotspot.users.count', {})).to.deep.equal({ count: 1 });

        expect(await outputOf(conn, 'hotspot.profiles.restore', { profiles: first.profiles })).to.include({
          added: 0,
        });
        let added = 0;
        for (const batch of batches(first.users, BATCH)) added += (await restore(batch)).added;
        expect(added).to.equal(VOUCHERS);

        const second = await exportAll();
        expect(second.count).to.equal(first.count);
        expect(byName(second.users)).to.deep.equal(byName(first.users).map(withoutUsage));
        expect(second.profiles).to.deep.equal(first.profiles);
        const names = await outputOf<{ names: string[] }>(conn, 'hotspot.users.names', {});
        expect(names.names).to.deep.equal(first.users.map((u) => u.name));
      });

      it('fails with ROUTER_TRAP when an add traps (after 10 adds), and a replay completes the batch', async () => {
        const backup = (await exportAll()).users.slice(0, BATCH);
        await remove(backup.map((u) => u.name));
        sim.faults.set({
          failCommand: { path: '/ip/hotspot/user/add', message: 'failure: out of memory', afterCalls: 10 },
        });
        const run = await runCommand(conn, 'hotspot.users.restore', { users: backup });
        expect(run.status).to.equal('FAILED');
        if (run.status === 'FAILED') expect(run.fault).to.include({ code: 'ROUTER_TRAP', retryable: false });
        expect(backup.filter((u) => onRouter(u.name))).to.have.length(10);
        sim.faults.clear();
        expect(await restore(backup)).to.deep.equal({ added: 30, updated: 10 });
        expect(backup.filter((u) => onRouter(u.name))).to.have.length(BATCH);
      });

      it('stallAddsAfter: reports DONE while the router keeps fewer users (the names tell)', async () => {
        const backup = (await exportAll()).users.slice(0, BATCH);
        await remove(backup.map((u) => u.name));
        sim.faults.set({ stallAddsAfter: 5 });
        expect(await restore(backup)).to.deep.equal({ added: BATCH, updated: 0 });
        expect(backup.filter((u) => onRouter(u.name))).to.have.length(5);
        const names = await outputOf<{ count: number }>(conn, 'hotspot.users.names', {});
        expect(names.count).to.equal(VOUCHERS - BATCH + 5);
      });

      it('never touches default-trial, even when a batch names it', async () => {
        const trial = { ...table().findBy('name', 'default-trial')!.props };
        const user = (await exportAll()).users[0]!;
        const out = await restore([
          { name: 'default-trial', profile: 'default', password: 'x', disabled: true },
          user,
        ]);
        expect(out).to.deep.equal({ added: 0, updated: 1 });
        expect(table().findBy('name', 'default-trial')!.props).to.deep.equal(trial);
      });

      it('fails with ROUTER_TRAP when a profile does not exist', async () => {
        const run = await runCommand(conn, 'hotspot.users.restore', {
          users: [{ name: 'new-1', profile: 'no-such-profile', disabled: false }],
        });
        expect(run.status).to.equal('FAILED');
        if (run.status === 'FAILED') expect(run.fault.code).to.equal('ROUTER_TRAP');
        expect(onRouter('new-1')).to.equal(false);
      });

      it('refuses 41 users with BAD_PARAMS before touching the router', async () => {
        const users = (await exportAll()).users.slice(0, BATCH + 1);
        const calls = recordCalls(conn);
        const run = await runCommand(conn, 'hotspot.users.restore', { users });
        expect(run.status).to.equal('FAILED');
        if (run.status === 'FAILED') expect(run.fault).to.include({ code: 'BAD_PARAMS', retryable: false });
        expect(calls).to.deep.equal([]);
      });
    });
  });
}
