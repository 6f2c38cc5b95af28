// Makes a channel: its key profile (the slot's existing one for that protocol, so a switch back
// needs no new keys), a management address of its own, the peer or account on the {vpn_host}
// end, then the rows. The VPN end is called before the transaction, never inside one.
import { randomBytes } from 'node:crypto';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import * as q from './queries.js';
import type { SecretBox } from '../../core/secret-box.js';
import { sealContexts } from './seal-contexts.js';
import type {
  ChannelRole,
  RemoteAccessChannelsTable,
  RemoteAccessProfilesTable,
  TransportProtocol,
} from './tables.js';
import { FIRST_ADDRESS_INDEX, SERVER_TUNNEL_ADDRESS, tunnelAddressOf } from './tunnel-addresses.js';
import type { VpnEndpoints, VpnHost } from './vpn-host.js';
import { newWireguardKeys } from './wireguard-keys.js';

/** The router's interface of each transport: one live channel per protocol, so fixed names. */
export const INTERFACE_NAMES: Readonly<Record<TransportProtocol, string>> = {
  WIREGUARD: 'tn-wireguard',
  SSTP: 'tn-sstp',
};

export interface ProvisionDeps {
  db: Db;
  clock: Clock;
  box: SecretBox;
  vpnHost: VpnHost;
}

export interface ProfileSecrets {
  privateKey?: string;
  presharedKey?: string;
  password?: string;
}

/** Opens a profile's sealed secrets (for a command's secret params only). */
export function openProfile(box: SecretBox, p: RemoteAccessProfilesTable): ProfileSecrets {
  return {
    ...(p.private_key_sealed
      ? { privateKey: box.open(p.private_key_sealed, sealContexts.profile(p.id, 'private_key')) }
      : {}),
    ...(p.preshared_key_sealed
      ? { presharedKey: box.open(p.preshared_key_sealed, sealContexts.profile(p.id, 'preshared_key')) }
      : {}),
    ...(p.password_sealed
      ? { password: box.open(p.password_sealed, sealContexts.profile(p.id, 'password')) }
      : {}),
  };
}

export async function provisionChannel(
  deps: ProvisionDeps,
  target: { clientId: string; allocationId: string },
  protocol: TransportProtocol,
  role: ChannelRole,
  endpoints: VpnEndpoints,
): Promise<RemoteAccessChannelsTable> {
  const { db, clock, box, vpnHost } = deps;
  const now = iso(clock.now());
  const existing = await q.findProfileFor(db, target.clientId, target.allocationId, protocol);
  const profile = existing ?? makeProfile(box, target, protocol, now);
  const secrets = openProfile(box, profile);
  // Two resolves racing for an address: the unique index refuses the second, which takes the next.
  for (let attempt = 0; ; attempt++) {
    const index = Math.max(FIRST_ADDRESS_INDEX, ((await q.maxAddressIndex(db)) ?? 0) + 1);
    const tunnelAddress = tunnelAddressOf(index);
    if (protocol === 'WIREGUARD')
      await vpnHost.addWireguardPeer({
        publicKey: profile.public_key!,
        presharedKey: secrets.presharedKey!,
        tunnelAddress,
      });
    else
      await vpnHost.addSstpAccount({
        username: profile.username!,
        password: secrets.password!,
        tunnelAddress,
      });
    const channel: RemoteAccessChannelsTable = {
      id: newId(),
      client_id: target.clientId,
      allocation_id: target.allocationId,
      profile_id: profile.id,
      role,
      protocol,
      state: 'ISSUED',
      address_index: index,
      tunnel_address: tunnelAddress,
      server_address: SERVER_TUNNEL_ADDRESS,
      endpoint_host: endpoints.host,
      endpoint_port: protocol === 'WIREGUARD' ? endpoints.wireguard.port : endpoints.sstp.port,
      interface_name: INTERFACE_NAMES[protocol],
      last_data_plane_confirmed_at: null,
      last_management_probe_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.transaction().execute(async (trx) => {
        if (!existing) await q.insertProfile(trx, profile);
        await q.insertChannel(trx, channel);
      });
      return channel;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

function makeProfile(
  box: SecretBox,
  target: { clientId: string; allocationId: string },
  protocol: TransportProtocol,
  now: string,
): RemoteAccessProfilesTable {
  const id = newId();
  const base = {
    id,
    client_id: target.clientId,
    allocation_id: target.allocationId,
    protocol,
    created_at: now,
    public_key: null,
    private_key_sealed: null,
    preshared_key_sealed: null,
    username: null,
    password_sealed: null,
  };
  if (protocol === 'WIREGUARD') {
    const keys = newWireguardKeys();
    return {
      ...base,
      public_key: keys.publicKey,
      private_key_sealed: box.seal(keys.privateKey, sealContexts.profile(id, 'private_key')),
      preshared_key_sealed: box.seal(keys.presharedKey, sealContexts.profile(id, 'preshared_key')),
    };
  }
  return {
    ...base,
    username: `tn-${id.replace(/-/g, '')}`,
    password_sealed: box.seal(randomBytes(24).toString('base64url'), sealContexts.profile(id, 'password')),
  };
}
