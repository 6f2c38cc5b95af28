// `rescue_transports`: the configured legacy WireGuard hosts, listed on the bundle only while the
// client's migration runs (a router EN_COURS or ARMEMENT), gone once it ends; never a channel.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import { startRemoteAccess, type RemoteAccessTest } from './remote-access-fixture.js';

const KEY1 = 'a'.repeat(42) + 'E=';
const KEY2 = 'b'.repeat(42) + 'E=';

forEachDatabase('remote access: legacy rescue transports', (database) => {
  let h: RemoteAccessTest;
  before(
    async () =>
      (h = await startRemoteAccess(database, {
        config: { vpnLegacyWireguardHosts: `old-wg.example.net:51820/${KEY1}, 198.51.100.7:13231/${KEY2}` },
      })),
  );
  after(() => h.close());

  const migration = (allocationId: string, clientId: string, statut: string) =>
    h.t.db.db
      .insertInto('radius_migrations')
      .values({
        allocation_id: allocationId,
        client_id: clientId,
        nas_id: null,
        statut,
        run_id: `run-${allocationId}`,
        retirer_local: 1,
        backup_id: null,
        comptes: 10,
        importes: 10,
        retires: 0,
        etapes: '[]',
        error_code: null,
        started_at: h.t.clock.now().toISOString(),
        updated_at: h.t.clock.now().toISOString(),
        switched_at: null,
        armed_at: null,
        confirmed_at: null,
        first_user: null,
        first_auth_at: null,
        returned_at: null,
        run_token: null,
        run_until: null,
      } as never)
      .onConflict((oc) => oc.column('allocation_id').doUpdateSet({ statut } as never))
      .execute();

  it('lists the legacy hosts only while the client migrates, and drops them when it ends', async () => {
    const a = (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' })).body.data;
    const b = (await h.resolve({ routeros_version: '6.49', router_serial: 'LEG0002' })).body.data;
    expect(a.rescue_transports).to.deep.equal([]);

    await migration(a.allocation_id, h.client.id, 'EN_COURS');
    const during = (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' })).body.data;
    expect(during.rescue_transports).to.deep.equal([
      {
        kind: 'LEGACY_WG_HOST',
        protocol: 'WIREGUARD',
        legacy: true,
        endpoint: { host: 'old-wg.example.net', port: 51820 },
        server_public_key: KEY1,
      },
      {
        kind: 'LEGACY_WG_SECONDARY',
        protocol: 'WIREGUARD',
        legacy: true,
        endpoint: { host: '198.51.100.7', port: 13231 },
        server_public_key: KEY2,
      },
    ]);
    // The client's other routers carry the bridge too; none of it is a channel or serves.
    const other = (await h.resolve({ routeros_version: '6.49', allocation_id: b.allocation_id })).body.data;
    expect(other.rescue_transports).to.have.length(2);
    for (const bundle of [during, other]) {
      expect(bundle.transport_channels.map((c: { role: string }) => c.role)).to.not.include('RESCUE');
      expect(JSON.stringify(bundle.transport_channels)).to.not.include('old-wg.example.net');
      expect(bundle.active_transport).to.be.oneOf(['WIREGUARD', 'SSTP']);
      expect(bundle.tunnel.endpoint.host).to.equal(h.vpn.host);
    }
    // Another tenant, not migrating, sees none.
    const foreign = (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' }, h.other.token))
      .body.data;
    expect(foreign.rescue_transports).to.deep.equal([]);

    // Armed: still running. Confirmed: the migration has ended and the bridge is gone at once.
    await migration(a.allocation_id, h.client.id, 'ARMEMENT');
    expect(
      (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' })).body.data.rescue_transports,
    ).to.have.length(2);
    await migration(a.allocation_id, h.client.id, 'CONFIRMEE');
    expect(
      (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' })).body.data.rescue_transports,
    ).to.deep.equal([]);
    await migration(a.allocation_id, h.client.id, 'REVENU_EN_LOCAL');
    expect(
      (await h.resolve({ routeros_version: '7.19', router_serial: 'LEG0001' })).body.data.rescue_transports,
    ).to.deep.equal([]);
  });
});
