// Enrolment with the real pieces in one process over real sockets: the controller listening on
// port 0, RouterOS simulators (7.19) and the real agent runtime. The router's own menus are the
// proof that the provisioning happened.
import { expect } from 'chai';
import { parseRouterOsDuration } from '../../../agent/routeros/ros-values.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { forEachDatabase } from '../../support/databases.js';
import { startLiveStack, type LiveStack } from '../../support/live-site.js';

forEachDatabase(
  'NAS enrolment end to end (controller, agent runtime, RouterOS 7.19 simulator)',
  (database) => {
    let stack: LiveStack;
    beforeEach(async () => {
      stack = await startLiveStack(database);
    });
    afterEach(async () => stack.close());

    const radius = (method: string, path: string, body?: unknown) => stack.radius(method, path, body);
    const site = (serial: string, identity: string) => stack.addSite({ serial, identity });

    const radiusEntries = (sim: RouterSim) =>
      sim.state
        .table('/radius')
        .list()
        .map((r) => r.props);
    const hotspotProfiles = (sim: RouterSim) =>
      sim.state
        .table('/ip/hotspot/profile')
        .list()
        .map((r) => r.props);

    it('provisions the router in server mode, which verify then confirms', async function () {
      this.timeout(60_000);
      const { sim } = await site('48A98A071901', 'Cyber-Medina');
      expect(radiusEntries(sim)).to.deep.equal([]);

      const res = await radius('POST', '/nas', { router_serial: '48A98A071901' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const nas = res.body.nas;
      expect(nas).to.include({ role: 'PRIMARY', status: 'ACTIVE', shortname: 'Cyber-Medina' });

      const provisioning = await radius('GET', `/nas/${nas.id}/provisioning`);
      const secret = /secret="([0-9a-f]+)"/.exec(provisioning.body.script)![1];
      const entries = radiusEntries(sim);
      expect(entries).to.have.length(1);
      expect(entries[0]).to.include({
        address: '172.31.255.2',
        secret,
        service: 'hotspot',
        'authentication-port': '1812',
        'accounting-port': '1813',
        timeout: '3s',
        comment: `ticketnet:${nas.id}`,
      });
      for (const profile of hotspotProfiles(sim)) {
        expect(profile, profile.name).to.include({ 'use-radius': 'true', 'radius-accounting': 'true' });
        // The router prints the interim interval its own way (300s → 5m).
        expect(parseRouterOsDuration(profile['radius-interim-update'] ?? '')).to.equal(300);
      }
      expect(sim.state.table('/radius/incoming').list()[0]!.props.accept).to.equal('true');
      // The temporary script entry (it holds the secret) is gone.
      const scripts = sim.state.table('/system/script').list();
      expect(scripts.filter((s) => s.props.name === 'ticketnet-radius')).to.deep.equal([]);
      // The router's user profiles were synchronised first.
      const names = (await stack.t.controller.services.profiles.listProfiles(stack.client.id)).map(
        (p) => p.name,
      );
      const routerNames = sim.state
        .table('/ip/hotspot/user/profile')
        .list()
        .map((r) => r.props.name);
      expect(names.sort()).to.deep.equal([...routerNames].sort());

      const verify = await radius('POST', `/nas/${nas.id}/verify`);
      expect(verify.status).to.equal(200);
      expect(verify.body.verified, JSON.stringify(verify.body)).to.equal(true);
      expect(verify.body.checks).to.deep.equal({
        tunnel_connected: true,
        radius_entry_present: true,
        secret_matches: true,
        hotspot_uses_radius: true,
        accounting_enabled: true,
        incoming_accepted: true,
      });

      // Enrolled again: the entry is replaced, not duplicated.
      expect((await radius('POST', '/nas', { router_serial: '48A98A071901' })).status).to.equal(201);
      expect(radiusEntries(sim)).to.have.length(1);

      // A change on the router shows in verify.
      sim.state.table('/radius').list()[0]!.props.secret = 'changed-by-hand';
      const drifted = await radius('POST', `/nas/${nas.id}/verify`);
      expect(drifted.body).to.deep.include({ verified: false });
      expect(drifted.body.checks).to.include({ radius_entry_present: true, secret_matches: false });
    });

    it('lets the app apply the script itself (app_apply), then verify makes it an ACTIVE MEMBER', async function () {
      this.timeout(60_000);
      await site('48A98A071901', 'Cyber-Medina');
      const primary = await radius('POST', '/nas', { router_serial: '48A98A071901' });
      expect(primary.status).to.equal(201);

      const { sim } = await site('48A98A071902', 'Annexe');
      const res = await radius('POST', '/nas', { router_serial: '48A98A071902', apply_mode: 'app_apply' });
      expect(res.status).to.equal(201);
      expect(res.body.nas).to.include({ status: 'PENDING', role: 'MEMBER' });
      expect(radiusEntries(sim)).to.deep.equal([]);

      const before = await radius('POST', `/nas/${res.body.nas.id}/verify`);
      expect(before.body.verified).to.equal(false);
      expect(before.body.checks).to.include({ tunnel_connected: true, radius_entry_present: false });

      // The app runs the script on the router (here: the simulator's script engine).
      const run = await sim.runScript(res.body.provisioning.script);
      expect(run.ok, run.error).to.equal(true);
      const after = await radius('POST', `/nas/${res.body.nas.id}/verify`);
      expect(after.body.verified, JSON.stringify(after.body)).to.equal(true);
      expect(after.body.nas).to.include({ status: 'ACTIVE', role: 'MEMBER' });

      const topo = await radius('GET', '/topology');
      expect(topo.body.primary.id).to.equal(primary.body.nas.id);
      expect(topo.body.members.map((m: { id: string }) => m.id)).to.deep.equal([res.body.nas.id]);
    });

    it('answers 502 and leaves nothing enrolled when the router refuses the script', async function () {
      this.timeout(60_000);
      const { sim } = await site('48A98A071901', 'Cyber-Medina');
      sim.faults.set({ failCommand: { path: '/radius/add', message: 'failure: not enough permissions' } });
      const res = await radius('POST', '/nas', { router_serial: '48A98A071901' });
      expect(res.status, JSON.stringify(res.body)).to.equal(502);
      expect(res.body).to.deep.include({ success: false, code: 'RADIUS_PROVISION_ERROR' });
      expect(res.body.details.fault.code).to.equal('ROUTER_TRAP');
      expect(res.body.details.fault.message).to.include('not enough permissions');
      expect((await radius('GET', '/topology')).body.primary).to.equal(null);
      expect(
        sim.state
          .table('/system/script')
          .list()
          .filter((s) => s.props.name === 'ticketnet-radius'),
      ).to.deep.equal([]);
    });
  },
);
