// MikroTik's Back To Home relay under `/ip/cloud` (RouterOS 7.12+, arm/arm64/tile hardware only),
// as its manual describes it: `back-to-home-vpn=enabled` needs `ddns-enabled=yes`; the relay then
// takes a while to come up (at 6 s its profile is still incomplete), after which `/ip/cloud` shows
// `vpn-status`, `vpn-dns-name`, `vpn-port` and the client profile. Per-user entries came in 7.14
// (`/ip/cloud/back-to-home-users`), renamed `/ip/cloud/back-to-home-user` in 7.18; a user's
// profile is shown by `/interface/wireguard/peers/show-client-config`.
import nacl from 'tweetnacl';
import { genericVerb } from './menu-commands.js';
import { RosTrap, noSuchItem, type CommandContext } from './command-types.js';
import type { MenuDef, MenuTable, SimRecord } from './menu-table.js';
import type { RouterState } from './router-state.js';
import { printRefreshed } from './vpn-tunnels.js';

const BTH_ARCHITECTURES = ['arm', 'arm64', 'tile'];
const RELAY_PORT = '47023';

const USERS_MENU = (path: '/ip/cloud/back-to-home-users' | '/ip/cloud/back-to-home-user'): MenuDef => ({
  path,
  available: (caps) => caps.backToHomeUsersMenu === path,
  props: [
    'name',
    'allow-lan',
    'expires',
    'client-address',
    'private-key',
    'public-key',
    'comment',
    'disabled',
  ],
  booleans: ['allow-lan', 'disabled'],
  required: ['name'],
  unique: { prop: 'name', message: 'failure: user with such name already exists' },
  defaults: () => ({ 'allow-lan': 'false', expires: 'never', disabled: 'false' }),
  fieldOrder: ['name', 'slot', 'expires', 'client-address', 'allow-lan', 'private-key', 'public-key'],
});

export const BACK_TO_HOME_MENUS: readonly MenuDef[] = [
  {
    path: '/ip/cloud',
    singleton: true,
    booleans: ['ddns-enabled', 'update-time'],
    readOnlyProps: ['public-address', 'dns-name', 'status', 'vpn-status', 'vpn-dns-name', 'vpn-port'],
  },
  USERS_MENU('/ip/cloud/back-to-home-users'),
  USERS_MENU('/ip/cloud/back-to-home-user'),
];

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export class SimBackToHome {
  private enabledAt: number | undefined;

  constructor(
    private readonly state: RouterState,
    /** Time the relay takes to come up once enabled. */
    private readonly readyMs: number,
  ) {
    const users = state.caps.backToHomeUsersMenu ? state.menu(state.caps.backToHomeUsersMenu) : undefined;
    users?.on('change', (kind: string, rec: SimRecord) => {
      if (kind === 'add') this.newUser(users, rec);
    });
  }

  private get supported(): boolean {
    return this.state.caps.backToHome && BTH_ARCHITECTURES.includes(this.state.identity.board.architecture);
  }

  private newUser(users: MenuTable, rec: SimRecord): void {
    const pair = nacl.box.keyPair();
    rec.props['private-key'] ??= b64(pair.secretKey);
    rec.props['public-key'] ??= b64(
      nacl.box.keyPair.fromSecretKey(Buffer.from(rec.props['private-key'], 'base64')).publicKey,
    );
    rec.props.slot = String(users.list().indexOf(rec) + 2);
    rec.props['client-address'] ??= `192.168.216.${rec.props.slot}/32`;
  }

  private ready(): boolean {
    return (
      this.enabledAt !== undefined && this.state.identity.now().getTime() - this.enabledAt >= this.readyMs
    );
  }

  private profile(privateKey: string, address: string): string {
    const lines = [
      '[Interface]',
      `PrivateKey = ${privateKey}`,
      `Address = ${address}`,
      '',
      '[Peer]',
      `PublicKey = ${this.relayKey}`,
    ];
    // Until the relay is up the profile has no endpoint (incomplete).
    if (this.ready()) lines.push(`Endpoint = ${this.dnsName}:${RELAY_PORT}`, 'AllowedIPs = 0.0.0.0/0');
    return lines.join('\n');
  }

  private readonly relayKey = b64(nacl.box.keyPair().publicKey);
  private readonly deviceKey = b64(nacl.randomBytes(32));

  private get dnsName(): string {
    return `${this.state.identity.serial.toLowerCase()}.vpn.mynetname.net`;
  }

  /** `/ip/cloud/set`: `back-to-home-vpn` exists only where the relay runs. */
  set = async (table: MenuTable, ctx: CommandContext) => {
    const attrs = ctx.req.attrs;
    const bth = attrs.get('back-to-home-vpn');
    if (bth !== undefined) {
      // sim assumption: the router's wording is not verified
      if (!this.supported) throw new RosTrap('unknown parameter back-to-home-vpn');
      if (!['enabled', 'revoked-and-disabled'].includes(bth))
        throw new RosTrap('invalid value for argument back-to-home-vpn');
    }
    await genericVerb(table, 'set')!(ctx);
    const rec = table.single();
    if (bth === 'enabled' && this.enabledAt === undefined)
      this.enabledAt = this.state.identity.now().getTime();
    if (bth === 'revoked-and-disabled') this.enabledAt = undefined;
    this.refresh(rec);
  };

  /** `/ip/cloud/print`: the relay's fields as of now. */
  print = async (table: MenuTable, ctx: CommandContext) => {
    this.refresh(table.single());
    await genericVerb(table, 'print')!(ctx);
  };

  private refresh(rec: SimRecord): void {
    if (!this.supported) return;
    const p = rec.props;
    p['back-to-home-vpn'] ??= 'revoked-and-disabled';
    for (const k of [
      'vpn-status',
      'vpn-dns-name',
      'vpn-port',
      'vpn-interface',
      'vpn-wireguard-client-config',
    ])
      delete p[k];
    if (p['back-to-home-vpn'] !== 'enabled') return;
    if (p['ddns-enabled'] !== 'true') {
      p['vpn-status'] = 'not ready: ddns is disabled';
      return;
    }
    p['vpn-status'] = this.ready() ? 'running (relay)' : 'connecting to relay...';
    if (!this.ready()) return;
    p['vpn-dns-name'] = this.dnsName;
    p['vpn-port'] = RELAY_PORT;
    p['vpn-interface'] = 'back-to-home-vpn';
    p['vpn-wireguard-client-config'] = this.profile(this.deviceKey, '192.168.216.2/32');
  }

  /** `/interface/wireguard/peers/show-client-config numbers=<user>`. */
  showClientConfig = (_table: MenuTable, ctx: CommandContext) => {
    const name = ctx.req.attrs.get('numbers') ?? '';
    const menu = this.state.caps.backToHomeUsersMenu;
    const user = menu ? this.state.menu(menu)?.findBy('name', name) : undefined;
    if (!user) throw noSuchItem();
    ctx.re({ conf: this.profile(user.props['private-key'] ?? '', user.props['client-address'] ?? '') });
  };
}

/** Verbs beside the generic ones, dispatched to the simulator's relay. */
export const CLOUD_VERBS = {
  set: (table: MenuTable, ctx: CommandContext) => ctx.sim.backToHome.set(table, ctx),
  print: (table: MenuTable, ctx: CommandContext) => ctx.sim.backToHome.print(table, ctx),
};
export const WIREGUARD_PEER_VERBS = {
  'show-client-config': (table: MenuTable, ctx: CommandContext) =>
    ctx.sim.backToHome.showClientConfig(table, ctx),
  print: (table: MenuTable, ctx: CommandContext) => printRefreshed(table, ctx),
};
