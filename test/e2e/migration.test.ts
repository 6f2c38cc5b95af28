// Migration of a router to RADIUS and back, over real processes: the controller, RouterOS
// simulators and site agents each in their own OS process (test/e2e/e2e-stack.ts). What stayed on
// the router is read from the simulator's control API after every run. The in-process tests
// (test/integration/migration) cover the fault cases one by one; these cover what only separate
// processes show: RADIUS through the agent's relay, an agent killed and a controller restarted
// mid-run, each refusal motif and the return's errors as an administrator meets them.
import { expect } from 'chai';
import { freeUdpPort } from '../support/free-port.js';
import { forEachDatabase } from '../support/databases.js';
import {
  Stack,
  START_MS,
  waitUntil,
  type Admin,
  type AgentProcess,
  type Allocation,
  type Client,
  type SimProcess,
  type SimSpec,
} from './e2e-stack.js';

const BASE = '/api/v1/radius/admin/migration';
const SPARED = 'default-trial';
const MO = 1_048_576;
/** Mocha timeout of a test that moves 2,000 accounts (a healthy run takes a fraction of it). */
const BIG_MS = 180_000;

// ---- what the routes answer -------------------------------------------------------------------

interface Etape {
  etape: string;
  etat: string;
  code?: string;
  raison?: string;
  comptes?: number;
  importes?: number;
  retires?: number;
  restes?: number;
  complet?: boolean;
}

interface Inventaire {
  success: boolean;
  allocation_id: string;
  nas_id: string | null;
  routeur: string | null;
  licence_active: boolean;
  tunnel_joignable: boolean;
  comptes_locaux: number | null;
  espace_flash_mo: number;
  autorise: boolean;
  motif: string | null;
  motif_texte: string | null;
  avertissements: string[];
}

interface MigrationAnswer {
  success: boolean;
  code?: string;
  allocation_id: string;
  nas_id: string | null;
  statut: string | null;
  etapes: Etape[];
  retires: number;
  importes: number;
  inventaire?: Inventaire;
  error?: { code: string; message: string };
}

interface ReturnAnswer {
  success: boolean;
  code?: string;
  statut: string | null;
  comptes_restaures: number;
  sauvegarde_datee_du: string | null;
  ecart_avec_radius: { connu: boolean; ecart: number | null; avertissement: string | null };
  etapes: Etape[];
  error?: { code: string; message: string };
}

interface MigrationState {
  statut: string;
  retires: number;
  importes: number;
  comptes: number | null;
  code: string | null;
  en_cours: boolean;
  premiere_connexion: { utilisateur: string; at: string } | null;
  confirmed_at: string | null;
}

interface Ticket {
  code: string;
  password: string;
  profile_name: string;
  status: string;
}

type Answer<T> = { status: number; body: T };

async function call<T>(
  stack: Stack,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Answer<T>> {
  const res = await stack.api.request(method, path, { token, ...(body !== undefined ? { body } : {}) });
  return { status: res.status, body: res.body as unknown as T };
}

const inventaire = (stack: Stack, admin: Admin, allocationId: string) =>
  call<Inventaire>(stack, 'GET', `${BASE}/${allocationId}/inventaire`, admin.token);
const migrate = (stack: Stack, admin: Admin, allocationId: string, retirerLocal: boolean) =>
  call<MigrationAnswer>(stack, 'POST', `${BASE}/${allocationId}`, admin.token, {
    retirer_local: retirerLocal,
  });
const retour = (stack: Stack, admin: Admin, allocationId: string, couperRadius: boolean) =>
  call<ReturnAnswer>(stack, 'POST', `${BASE}/${allocationId}/retour`, admin.token, {
    couper_radius: couperRadius,
  });
async function migrationState(stack: Stack, admin: Admin, allocationId: string): Promise<MigrationState> {
  const res = await call<{ success: boolean; migration: MigrationState }>(
    stack,
    'GET',
    `${BASE}/${allocationId}`,
    admin.token,
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.migration;
}

/** Every ticket of the client, read page by page from the manager's route. */
async function tickets(stack: Stack, client: Client): Promise<Map<string, Ticket>> {
  const all = new Map<string, Ticket>();
  for (let offset = 0; ; offset += 1000) {
    const page = await stack.api.ok<Ticket[]>(
      200,
      'GET',
      `/api/v1/radius/tickets?limit=1000&offset=${offset}`,
      {
        token: client.token,
      },
    );
    for (const t of page) all.set(t.code, t);
    if (page.length < 1000) return all;
  }
}

// ---- what is on the router --------------------------------------------------------------------

type Props = Record<string, string>;

/** The router's hotspot users: name → props (default-trial included). */
async function routerUsers(sim: SimProcess): Promise<Map<string, Props>> {
  return new Map((await sim.menu('/ip/hotspot/user')).map((r) => [r.name!, r]));
}

/** `use-radius` of every hotspot server profile. */
async function usesRadius(sim: SimProcess): Promise<boolean[]> {
  return (await sim.menu('/ip/hotspot/profile')).map((r) => r['use-radius'] === 'true');
}

/** Entries of /ip/hotspot/user, default-trial included, as the simulator counts them. */
async function userCount(sim: SimProcess): Promise<number> {
  return (await sim.summary()).counts['/ip/hotspot/user'] ?? 0;
}

/** What a run may not change when it is refused: users, profiles, /radius, files. */
async function routerSnapshot(sim: SimProcess): Promise<unknown> {
  const summary = await sim.summary();
  return {
    users: await sim.menu('/ip/hotspot/user'),
    profiles: await sim.menu('/ip/hotspot/profile'),
    userProfiles: await sim.menu('/ip/hotspot/user/profile'),
    radius: await sim.menu('/radius'),
    files: summary.files.map((f) => f.name).sort(),
  };
}

/** A RouterOS duration (`4w2d`, `30d`, `1h30m`, `00:30:00`) in seconds: one length, two spellings. */
function seconds(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const clock = /^(?:(\d+)d)?(\d+):(\d+):(\d+)$/.exec(text);
  if (clock)
    return (
      Number(clock[1] ?? 0) * 86_400 + Number(clock[2]) * 3600 + Number(clock[3]) * 60 + Number(clock[4])
    );
  const units: Record<string, number> = { w: 604_800, d: 86_400, h: 3600, m: 60, s: 1 };
  let total = 0;
  for (const [, n, unit] of text.matchAll(/(\d+)([wdhms])/g)) total += Number(n) * units[unit!]!;
  return total;
}

/**
 * The fields a return must put back as they were (counters and ids are the router's own). An
 * empty comment is no comment, and a byte limit of 0 is no limit, on RouterOS as here.
 */
const restorable = (p: Props) => ({
  name: p.name,
  password: p.password,
  profile: p.profile,
  comment: p.comment || undefined,
  disabled: p.disabled,
  'limit-uptime': seconds(p['limit-uptime']),
  'limit-bytes-total': p['limit-bytes-total'] === '0' ? undefined : p['limit-bytes-total'],
});

// ---- a site -----------------------------------------------------------------------------------

interface Site {
  sim: SimProcess;
  agent: AgentProcess;
  allocation: Allocation;
  /** The agent's settings (RADIUS relay), for a restart with the same ones. */
  agentEnv: Record<string, string>;
}

/** Relay turned off: these routers never log anyone in through RADIUS. */
const NO_RELAY = { TICKETNET_RADIUS_RELAY_AUTH_PORT: 'off', TICKETNET_RADIUS_RELAY_ACCT_PORT: 'off' };

let serials = 0;
const serial = () => `E2E${String(Date.now() % 1e6).padStart(6, '0')}${String(++serials).padStart(3, '0')}`;

async function site(
  stack: Stack,
  client: Client,
  spec: Partial<SimSpec> = {},
  agentEnv: Record<string, string> = NO_RELAY,
): Promise<Site> {
  const sim = await stack.startSim({
    serial: serial(),
    version: '7.19',
    identity: 'Site-Migration',
    ...spec,
  });
  const { agent, allocation } = await stack.enrolAgent(client, sim, { env: agentEnv });
  return { sim, agent, allocation, agentEnv };
}

/** A controller with the job-run route, a licensed client and an administrator. */
async function platform(
  stack: Stack,
  env: Record<string, string> = {},
): Promise<{ admin: Admin; client: Client }> {
  await stack.startController(0, { TICKETNET_JOB_RUN_ROUTE: 'true', ...env });
  const [admin, client] = await Promise.all([stack.admin(), stack.api.client()]);
  await stack.api.grantLicence(admin, client);
  return { admin, client };
}

const stepNames = (etapes: Etape[]) => etapes.map((e) => e.etape);
const step = (etapes: Etape[], name: string) => etapes.find((e) => e.etape === name);

// ---- the tests --------------------------------------------------------------------------------

forEachDatabase(
  'e2e: migration to RADIUS and back (controller, simulator, agent as processes)',
  function (database) {
    this.timeout(BIG_MS);

    describe('a clean migration of 2,000 accounts, the first real connection, the return', () => {
      let stack: Stack;
      afterEach(async function () {
        if (this.currentTest?.state === 'failed') console.log(stack.dump());
        await stack.shutdown();
      });

      it('migrates 2,000 accounts, a migrated ticket logs in through the relay, the watch job confirms, the return puts them back', async () => {
        stack = await Stack.create(database);
        const [authPort, acctPort] = [await freeUdpPort(), await freeUdpPort()];
        // The router's RADIUS goes to the agent's relay on loopback, and from there to the controller.
        const { admin, client } = await platform(stack, {
          TICKETNET_RADIUS_RELAY_ADDRESS: '127.0.0.1',
          TICKETNET_RADIUS_RELAY_AUTH_PORT: String(authPort),
          TICKETNET_RADIUS_RELAY_ACCT_PORT: String(acctPort),
        });
        const { sim, agent, allocation } = await site(
          stack,
          client,
          { users: 2000 },
          {
            TICKETNET_RADIUS_RELAY_HOST: '127.0.0.1',
            TICKETNET_RADIUS_RELAY_AUTH_PORT: String(authPort),
            TICKETNET_RADIUS_RELAY_ACCT_PORT: String(acctPort),
          },
        );
        await agent.proc.waitFor(/radius relay listening/, START_MS);
        const before = await routerUsers(sim);
        expect(before.size).to.equal(2001);
        expect(before.has(SPARED)).to.equal(true);

        const inv = await inventaire(stack, admin, allocation.id);
        expect(inv.status, JSON.stringify(inv.body)).to.equal(200);
        expect(inv.body).to.include({
          autorise: true,
          motif: null,
          licence_active: true,
          tunnel_joignable: true,
          comptes_locaux: 2000,
        });

        let t0 = Date.now();
        const res = await migrate(stack, admin, allocation.id, true);
        const migrateMs = Date.now() - t0;
        expect(res.status, JSON.stringify(res.body).slice(0, 2000)).to.equal(200);
        expect(res.body).to.include({ success: true, allocation_id: allocation.id, statut: 'ARMEMENT' });
        expect(res.body).to.include({ importes: 2000, retires: 2000 });
        expect(stepNames(res.body.etapes)).to.deep.equal([
          'SAUVEGARDE',
          'IMPORT',
          'CONFIG',
          'RETRAIT_LOCAL',
          'ARMEMENT',
        ]);
        for (const e of res.body.etapes) expect(e.etat, e.etape).to.equal('OK');
        expect(step(res.body.etapes, 'IMPORT')).to.include({ comptes: 2000, importes: 2000, complet: true });

        // On the router: only default-trial, every hotspot profile asks RADIUS.
        expect([...(await routerUsers(sim)).keys()]).to.deep.equal([SPARED]);
        const radiusOn = await usesRadius(sim);
        expect(radiusOn.length).to.be.above(0);
        expect(radiusOn.every(Boolean)).to.equal(true);
        const radiusEntries = await sim.menu('/radius');
        expect(radiusEntries).to.have.length(1);
        expect(radiusEntries[0]).to.include({
          address: '127.0.0.1',
          'authentication-port': String(authPort),
        });

        // Every account that left the router is a ticket, with its password and profile.
        const store = await tickets(stack, client);
        expect(store.size).to.equal(2000);
        for (const [name, props] of before) {
          if (name === SPARED) continue;
          const ticket = store.get(name);
          expect(ticket, name).to.not.equal(undefined);
          expect(ticket!.password, name).to.equal(props.password ?? '');
          expect(ticket!.profile_name, name).to.equal(props.profile);
        }

        // The first real connection: a fresh migrated ticket, refused by no local user any more,
        // accepted by the controller through the agent's relay.
        const fresh = [...before.values()].find(
          (p) => p.name !== SPARED && p.disabled !== 'true' && p.uptime === '0s' && !p['mac-address'],
        );
        expect(fresh, 'an unused ticket on the router').to.not.equal(undefined);
        const login = await sim.hotspotLogin({
          user: fresh!.name!,
          password: fresh!.password ?? '',
          mac: 'AA:BB:CC:00:20:00',
          ip: '10.5.50.200',
        });
        expect(login, JSON.stringify(login)).to.include({ ok: true, radius: true });

        // RADIUS_MIGRATION_WATCH, run now rather than in three minutes: the migration is confirmed.
        const confirmed = await waitUntil(
          async () => {
            await stack.api.ok(200, 'POST', '/api/v1/admin/jobs/RADIUS_MIGRATION_WATCH/run', {
              token: admin.token,
            });
            const state = await migrationState(stack, admin, allocation.id);
            return state.statut === 'CONFIRMEE' ? state : undefined;
          },
          10_000,
          'the watch job to confirm the migration',
          250,
        );
        expect(confirmed.premiere_connexion?.utilisateur).to.equal(fresh!.name);
        expect(confirmed).to.include({ retires: 2000, importes: 2000, en_cours: false });
        expect(confirmed.confirmed_at).to.be.a('string');

        // Three tickets sold since the switch live only in RADIUS: the return counts them.
        const sold = await stack.api.ok<{ count: number; tickets: Ticket[] }>(
          201,
          'POST',
          '/api/v1/radius/tickets',
          {
            token: client.token,
            body: { profile_id: fresh!.profile, quantity: 3 },
          },
        );
        expect(sold.count).to.equal(3);

        // The return, RADIUS cut last.
        t0 = Date.now();
        const back = await retour(stack, admin, allocation.id, true);
        const returnMs = Date.now() - t0;
        expect(back.status, JSON.stringify(back.body).slice(0, 2000)).to.equal(200);
        expect(back.body).to.include({ success: true, statut: 'REVENU_EN_LOCAL', comptes_restaures: 2000 });
        expect(stepNames(back.body.etapes)).to.deep.equal([
          'LECTURE_SAUVEGARDE',
          'PROFILS',
          'COMPTES',
          'VERIFICATION',
          'RADIUS_COUPE',
        ]);
        for (const e of back.body.etapes) expect(e.etat, e.etape).to.equal('OK');
        expect(back.body.sauvegarde_datee_du).to.be.a('string');
        expect(back.body.ecart_avec_radius.connu).to.equal(true);
        expect(back.body.ecart_avec_radius.ecart).to.equal(3);
        expect(back.body.ecart_avec_radius.avertissement).to.be.a('string');

        // The router holds its 2,000 accounts again, as they were; RADIUS cut, its entry kept.
        const after = await routerUsers(sim);
        expect(after.size).to.equal(2001);
        for (const [name, props] of before) {
          expect(after.has(name), name).to.equal(true);
          if (name !== SPARED) expect(restorable(after.get(name)!), name).to.deep.equal(restorable(props));
        }
        for (const t of sold.tickets) expect(after.has(t.code), t.code).to.equal(false);
        expect((await usesRadius(sim)).some(Boolean)).to.equal(false);
        expect(await sim.menu('/radius')).to.have.length(1);
        expect((await migrationState(stack, admin, allocation.id)).statut).to.equal('REVENU_EN_LOCAL');
        console.log(`      (2,000 accounts: migration ${migrateMs} ms, return ${returnMs} ms)`);
      });
    });

    describe('interrupted mid-removal, then replayed', () => {
      let stack: Stack;
      afterEach(async function () {
        if (this.currentTest?.state === 'failed') console.log(stack.dump());
        await stack.shutdown();
      });

      /**
       * Starts a migration of `users` accounts on a router slowed down once its configuration is
       * applied, and resolves once the first local accounts are gone (the removal is under way).
       */
      async function migrationUnderWay(s: Site, admin: Admin, stepMs: number) {
        // A little slow from the start, to widen the window between the configuration and the removal.
        await s.sim.setFaults({ delayMs: 15 });
        const run = migrate(stack, admin, s.allocation.id, true);
        run.catch(() => undefined);
        const total = await userCount(s.sim);
        await waitUntil(
          async () => (await s.sim.menu('/radius')).length > 0,
          60_000,
          'the RADIUS configuration',
          10,
        );
        await s.sim.setFaults({ delayMs: stepMs });
        await waitUntil(async () => (await userCount(s.sim)) < total, 60_000, 'the first removals', 20);
        // Wrapped: an async function returning the promise itself would wait for the run's answer.
        return { run };
      }

      /** Names that left the router, each checked against the client's tickets. */
      async function removedAreTickets(
        s: Site,
        client: Client,
        before: Map<string, Props>,
      ): Promise<string[]> {
        const now = await routerUsers(s.sim);
        const store = await tickets(stack, client);
        const gone = [...before.keys()].filter((n) => !now.has(n));
        expect(gone, 'default-trial spared').to.not.include(SPARED);
        for (const name of gone)
          expect(store.has(name), `${name} left the router and is no ticket`).to.equal(true);
        return gone;
      }

      /**
       * After a replay: the migration says every account left the router, and the return puts every
       * one of them back (the backup it restores is the one taken before the first removal).
       */
      async function nothingLost(s: Site, admin: Admin, before: Map<string, Props>, state: MigrationState) {
        expect(state).to.include({ statut: 'ARMEMENT', en_cours: false, code: null });
        const back = await retour(stack, admin, s.allocation.id, false);
        expect(back.status, JSON.stringify(back.body).slice(0, 2000)).to.equal(200);
        expect(back.body.statut).to.equal('REVENU_EN_LOCAL');
        const after = await routerUsers(s.sim);
        const missing = [...before.keys()].filter((n) => !after.has(n));
        expect(
          missing.length,
          `accounts the return did not put back (${missing.slice(0, 5).join(', ')}…)`,
        ).to.equal(0);
        expect(back.body.comptes_restaures).to.equal(before.size - 1);
        expect(state.retires, 'retires counts every account that left the router').to.equal(before.size - 1);
      }

      it('agent SIGKILLed during the removal: restarted, the replay removes the rest; nothing absent that is not a ticket', async () => {
        stack = await Stack.create(database);
        const { admin, client } = await platform(stack);
        const s = await site(stack, client, { users: 2000 });
        const before = await routerUsers(s.sim);

        const { run } = await migrationUnderWay(s, admin, 300);
        s.agent.proc.child.kill('SIGKILL');
        await s.agent.proc.exited;
        const goneAtKill = await removedAreTickets(s, client, before);
        expect(goneAtKill.length).to.be.above(0).and.below(2000);

        // The agent comes back: the command it was running is reported interrupted (retryable), so
        // the run sends that batch again and goes on; either way nothing left the router that is not
        // a ticket, and the router keeps RADIUS.
        await s.sim.clearFaults();
        await stack.startAgent({ sim: s.sim, stateDir: s.agent.stateDir, env: s.agentEnv });
        const first = await run;
        expect([200, 502], JSON.stringify(first.body).slice(0, 2000)).to.include(first.status);
        expect(first.body).to.include({ statut: 'ARMEMENT' });
        if (first.status === 502) expect(first.body.code).to.equal('MIGRATION_REMOVE_STALLED');
        await removedAreTickets(s, client, before);
        expect((await usesRadius(s.sim)).every(Boolean)).to.equal(true);

        // The replay ends the job.
        const replay = await migrate(stack, admin, s.allocation.id, true);
        expect(replay.status, JSON.stringify(replay.body).slice(0, 2000)).to.equal(200);
        expect(replay.body).to.include({ statut: 'ARMEMENT' });
        expect([...(await routerUsers(s.sim)).keys()]).to.deep.equal([SPARED]);
        expect(await removedAreTickets(s, client, before)).to.have.length(2000);
        await nothingLost(s, admin, before, await migrationState(stack, admin, s.allocation.id));
      });

      it('controller SIGKILLed during the removal: restarted on its database, the replay (lease lapsed) ends 200, nothing lost', async () => {
        stack = await Stack.create(database);
        // A short lease: the dead controller's run frees the router 3 s after its last renewal.
        const { admin, client } = await platform(stack, { TICKETNET_MIGRATION_LEASE_MS: '3000' });
        const s = await site(stack, client, { users: 2000 });
        const before = await routerUsers(s.sim);

        const { run } = await migrationUnderWay(s, admin, 300);
        const controller = stack.controller!;
        controller.proc.child.kill('SIGKILL');
        await controller.proc.exited;
        const lost = await run.then(
          (answer) => `answered ${answer.status}`,
          () => 'no answer',
        );
        expect(lost, 'the killed controller answered').to.equal('no answer');
        const atKill = await routerUsers(s.sim);
        expect(atKill.size).to.be.above(1).and.below(2001);

        // The agent finishes the batch it had (its result waits in its journal), then reconnects.
        await s.sim.clearFaults();
        await stack.startController(controller.port);
        await stack.api.waitForAllocation(
          client,
          s.allocation.id,
          (a) => a.link_state === 'CONNECTED',
          'reconnected',
        );
        const store = await tickets(stack, client);
        for (const name of before.keys()) {
          if (!atKill.has(name))
            expect(store.has(name), `${name} left the router and is no ticket`).to.equal(true);
        }
        await removedAreTickets(s, client, before);

        // The replay, once the dead run's lease has lapsed.
        const replay = await waitUntil(
          async () => {
            const res = await migrate(stack, admin, s.allocation.id, true);
            return res.status === 409 && res.body.code === 'MIGRATION_IN_PROGRESS' ? undefined : res;
          },
          20_000,
          'the dead run to free the router',
          500,
        );
        expect(replay.status, JSON.stringify(replay.body).slice(0, 2000)).to.equal(200);
        expect(replay.body).to.include({ success: true, statut: 'ARMEMENT' });
        expect(stepNames(replay.body.etapes)).to.deep.equal([
          'SAUVEGARDE',
          'IMPORT',
          'CONFIG',
          'RETRAIT_LOCAL',
          'ARMEMENT',
        ]);
        expect([...(await routerUsers(s.sim)).keys()]).to.deep.equal([SPARED]);
        expect(await removedAreTickets(s, client, before)).to.have.length(2000);
        expect(await s.sim.menu('/radius')).to.have.length(1);
        await nothingLost(s, admin, before, await migrationState(stack, admin, s.allocation.id));
      });
    });

    describe('refusals and return errors (one controller, a router per test)', () => {
      let stack: Stack;
      let admin: Admin;
      let client: Client;
      let unlicensed: Client;

      before(async () => {
        stack = await Stack.create(database);
        ({ admin, client } = await platform(stack));
        unlicensed = await stack.api.client();
      });
      afterEach(function () {
        if (this.currentTest?.state === 'failed') console.log(stack.dump(40));
      });
      after(() => stack?.shutdown());

      /**
       * The inventory refuses with `motif`, and so does the migration (409, nothing changed on the
       * router). Answers the inventory.
       */
      async function refused(s: Site, owner: Client, motif: string, snapshot = true): Promise<Inventaire> {
        const before = snapshot ? await routerSnapshot(s.sim) : undefined;
        const inv = await inventaire(stack, admin, s.allocation.id);
        expect(inv.status, JSON.stringify(inv.body)).to.equal(200);
        expect(inv.body).to.include({
          success: true,
          allocation_id: s.allocation.id,
          autorise: false,
          motif,
        });
        expect(inv.body.motif_texte).to.be.a('string').and.not.equal('');
        expect(inv.body.avertissements).to.be.an('array');
        expect(inv.body.espace_flash_mo).to.be.a('number');

        const res = await migrate(stack, admin, s.allocation.id, true);
        expect(res.status, JSON.stringify(res.body).slice(0, 2000)).to.equal(409);
        expect(res.body.success).to.equal(false);
        expect(res.body.error?.code ?? res.body.code).to.equal('MIGRATION_NOT_ALLOWED');
        expect(res.body.inventaire).to.include({ autorise: false, motif });
        if (snapshot) {
          expect(await routerSnapshot(s.sim), 'the router after a refusal').to.deep.equal(before);
          // Nothing reached RADIUS either.
          if (owner === client) {
            const store = await tickets(stack, owner);
            for (const name of (await routerUsers(s.sim)).keys())
              expect(store.has(name), name).to.equal(false);
          }
        }
        return inv.body;
      }

      it('licence inactive → LICENCE_RADIUS_INACTIVE (accounts still counted)', async () => {
        const s = await site(stack, unlicensed, { users: 40 });
        const inv = await refused(s, unlicensed, 'LICENCE_RADIUS_INACTIVE');
        expect(inv).to.include({ licence_active: false, tunnel_joignable: true, comptes_locaux: 40 });
      });

      it('router unreachable → ROUTEUR_INJOIGNABLE: agent stopped (link down), then router gone (agent up)', async () => {
        const s = await site(stack, client, { users: 30 });
        expect(await s.agent.proc.stop('SIGTERM')).to.equal(0);
        await stack.api.waitForAllocation(
          client,
          s.allocation.id,
          (a) => a.link_state === 'DISCONNECTED',
          'DISCONNECTED',
        );
        const linkDown = await refused(s, client, 'ROUTEUR_INJOIGNABLE');
        expect(linkDown).to.include({ licence_active: true, tunnel_joignable: false, comptes_locaux: null });

        // The agent answers, the router behind it does not.
        await stack.startAgent({ sim: s.sim, stateDir: s.agent.stateDir, env: s.agentEnv });
        await stack.api.waitForAllocation(
          client,
          s.allocation.id,
          (a) => a.link_state === 'CONNECTED',
          'CONNECTED',
        );
        expect(await s.sim.proc.stop('SIGTERM')).to.equal(0);
        const routerGone = await refused(s, client, 'ROUTEUR_INJOIGNABLE', false);
        expect(routerGone).to.include({ licence_active: true, tunnel_joignable: true, comptes_locaux: null });
      });

      it('inventory unreadable → INVENTAIRE_ILLISIBLE (comptes_locaux null, not zero)', async () => {
        const s = await site(stack, client, { users: 30 });
        await s.sim.setFaults({
          failCommand: { path: '/ip/hotspot/user/print', message: 'failure: timeout' },
        });
        const inv = await refused(s, client, 'INVENTAIRE_ILLISIBLE');
        expect(inv).to.include({ licence_active: true, tunnel_joignable: true, comptes_locaux: null });
      });

      it('more than 15,000 accounts → TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE', async () => {
        const s = await site(stack, client, { users: 15_001 });
        const inv = await refused(s, client, 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE');
        expect(inv).to.include({ licence_active: true, tunnel_joignable: true, comptes_locaux: 15_001 });
        expect(inv.motif_texte).to.include('15001');
      });

      it('under 25 MB of free flash → ESPACE_FLASH_INSUFFISANTE', async () => {
        const s = await site(stack, client, { users: 30, freeHdd: 24 * MO + MO / 2 });
        const inv = await refused(s, client, 'ESPACE_FLASH_INSUFFISANTE');
        expect(inv).to.include({
          licence_active: true,
          tunnel_joignable: true,
          comptes_locaux: 30,
          espace_flash_mo: 24,
        });
      });

      /** A router of `users` accounts migrated (removal included). Answers it with its accounts before. */
      async function migrated(users: number): Promise<{ s: Site; before: Map<string, Props> }> {
        const s = await site(stack, client, { users });
        const before = await routerUsers(s.sim);
        const res = await migrate(stack, admin, s.allocation.id, true);
        expect(res.status, JSON.stringify(res.body).slice(0, 2000)).to.equal(200);
        expect([...(await routerUsers(s.sim)).keys()]).to.deep.equal([SPARED]);
        return { s, before };
      }

      /** RADIUS was not cut: every hotspot profile still asks it, its /radius entry is there. */
      async function radiusStillOn(s: Site): Promise<void> {
        expect((await usesRadius(s.sim)).every(Boolean), 'use-radius').to.equal(true);
        expect(await s.sim.menu('/radius')).to.have.length(1);
      }

      it('restore interrupted (adds trap after 100) → RESTORE_USERS_FAILED, RADIUS kept; a retry completes', async () => {
        const { s, before } = await migrated(200);
        await s.sim.setFaults({
          failCommand: { path: '/ip/hotspot/user/add', message: 'failure: busy', afterCalls: 100 },
        });
        const res = await retour(stack, admin, s.allocation.id, true);
        expect(res.status, JSON.stringify(res.body).slice(0, 2000)).to.equal(502);
        expect(res.body).to.include({ success: false, code: 'RESTORE_USERS_FAILED', statut: 'ARMEMENT' });
        expect(stepNames(res.body.etapes)).to.deep.equal(['LECTURE_SAUVEGARDE', 'PROFILS', 'COMPTES']);
        expect(step(res.body.etapes, 'COMPTES')).to.include({ etat: 'ECHEC', code: 'RESTORE_USERS_FAILED' });
        // What went back stays; nothing else changed; RADIUS still serves the rest.
        const now = await routerUsers(s.sim);
        expect(now.size).to.equal(101);
        for (const name of now.keys()) expect(before.has(name), name).to.equal(true);
        expect(res.body.comptes_restaures).to.be.at.most(100);
        await radiusStillOn(s);
        expect((await migrationState(stack, admin, s.allocation.id)).statut).to.equal('ARMEMENT');

        // The router is free again: the same return, replayed, completes (idempotent batches).
        await s.sim.clearFaults();
        const again = await retour(stack, admin, s.allocation.id, true);
        expect(again.status, JSON.stringify(again.body).slice(0, 2000)).to.equal(200);
        expect(again.body).to.include({ statut: 'REVENU_EN_LOCAL', comptes_restaures: 200 });
        expect([...(await routerUsers(s.sim)).keys()].sort()).to.deep.equal([...before.keys()].sort());
        expect((await usesRadius(s.sim)).some(Boolean)).to.equal(false);
      });

      it('restore incomplete (adds silently dropped after 100) → RESTORE_INCOMPLETE, RADIUS kept', async () => {
        const { s } = await migrated(200);
        await s.sim.setFaults({ stallAddsAfter: 100 });
        const res = await retour(stack, admin, s.allocation.id, true);
        expect(res.status, JSON.stringify(res.body).slice(0, 2000)).to.equal(502);
        expect(res.body).to.include({
          success: false,
          code: 'RESTORE_INCOMPLETE',
          statut: 'ARMEMENT',
          comptes_restaures: 100,
        });
        expect(step(res.body.etapes, 'VERIFICATION')).to.include({
          etat: 'ECHEC',
          attendus: 200,
          presents: 100,
        });
        expect(step(res.body.etapes, 'RADIUS_COUPE')).to.equal(undefined);
        expect((await routerUsers(s.sim)).size).to.equal(101);
        await radiusStillOn(s);
      });

      it('return on a router never migrated → RESTORE_NO_BACKUP, nothing touched', async () => {
        const s = await site(stack, client, { users: 20 });
        const before = await routerSnapshot(s.sim);
        const res = await retour(stack, admin, s.allocation.id, true);
        expect(res.status, JSON.stringify(res.body)).to.equal(409);
        expect(res.body).to.include({ success: false, code: 'RESTORE_NO_BACKUP', comptes_restaures: 0 });
        expect(await routerSnapshot(s.sim)).to.deep.equal(before);
      });
    });
  },
);
