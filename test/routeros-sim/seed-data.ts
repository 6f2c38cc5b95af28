// Initial router content: a lived-in hotspot router as ticket sellers run
// them (vouchers, profiles named after duration and price, sales recorded as
// /system/script entries by the local ticket-manager app). Deterministic from
// the serial so tests can rely on it.
import { Prng } from './prng.js';
import { seedQos } from './qos-menus.js';
import { NON_RESELLER_TAGS, seedResellerFleet } from './reseller-fleet.js';
import type { ResellerTruth } from './reseller-fleet.js';
import { formatDate, formatDateTime, formatDuration, formatTime } from './ros-format.js';
import type { RouterState } from './router-state.js';

export interface SeedProfile {
  name: string;
  rateLimit: string;
  /** Validity as a RouterOS duration (1h, 1d, 30d). */
  validity: string;
  /** Price in XOF. */
  price: number;
}

export interface SeedOptions {
  /** Vouchers in /ip/hotspot/user besides default-trial (default 40). */
  hotspotUsers?: number;
  /** Sales entries in /system/script (default 20). */
  salesScripts?: number;
  /** Entries in /ip/hotspot/active (default min(5, hotspotUsers)). */
  activeSessions?: number;
  /** Dynamic DHCP leases (default 8). */
  dhcpLeases?: number;
  /** Reseller names used in "vendu par <name>" comments (default awa, moussa, fatou). */
  resellers?: string[];
  /** Share of vouchers that carry a reseller comment (default 0.3). */
  resellerCommentRatio?: number;
  /** User profiles besides `default` (default 1h-500F, 3h-1000F, 1d-2000F, 7d-5000F, 30d-15000F). */
  profiles?: SeedProfile[];
  /** Extra hotspot users added verbatim after the generated ones. */
  users?: Array<Record<string, string>>;
  /** Extra /system/script entries added verbatim. */
  scripts?: Array<Record<string, string>>;
  /**
   * The 9 reseller accounts of a local-mode site (hotspot users whose comment
   * holds identity, balance and the last 20 movements; 90 movements in all),
   * tickets tagged with their names and with non-reseller names. See README.md.
   */
  resellerFleet?: boolean;
}

/** What the seed put on the router that tests compare against. */
export interface SeedReport {
  /** The reseller fleet, when seeded: what a takeover must find. */
  resellers: ResellerTruth[];
}

export const DEFAULT_PROFILES: readonly SeedProfile[] = [
  { name: '1h-500F', rateLimit: '1M/2M', validity: '1h', price: 500 },
  { name: '3h-1000F', rateLimit: '1M/2M', validity: '3h', price: 1000 },
  { name: '1d-2000F', rateLimit: '2M/4M', validity: '1d', price: 2000 },
  { name: '7d-5000F', rateLimit: '2M/4M', validity: '7d', price: 5000 },
  { name: '30d-15000F', rateLimit: '3M/6M', validity: '30d', price: 15000 },
];

const CODE_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const HOTSPOT_NET = '10.5.50';
/** Separator the ticket-manager apps put between fields of a sale record name. */
export const SALE_SEPARATOR = '-|-';

export function seedRouter(state: RouterState, identityName: string, options: SeedOptions = {}): SeedReport {
  const { board, caps, serial } = state.identity;
  const rng = new Prng(serial);
  const now = state.identity.now();
  const set = (path: string, props: Record<string, string>): void =>
    state.table(path).update(state.table(path).single(), props);

  set('/system/identity', { name: identityName });
  if (board.routerboard) {
    const rb: Record<string, string> = { routerboard: 'true' };
    if (caps.routerboardBoardName) rb['board-name'] = board.boardName;
    Object.assign(rb, {
      model: `${caps.routerboardModelPrefix}${board.model}`,
      'serial-number': serial,
      'firmware-type':
        board.architecture === 'mipsbe' ? 'qca9531L' : board.architecture === 'tile' ? 'tilegx' : 'ipq4000L',
      'factory-firmware': board.firmware,
      'current-firmware': caps.version.text,
      'upgrade-firmware': caps.version.text,
    });
    set('/system/routerboard', rb);
    set('/system/license', {
      'software-id': `${serial.slice(0, 4)}-${serial.slice(4, 8)}`,
      nlevel: '4',
      features: '',
    });
  } else {
    set('/system/routerboard', { routerboard: 'false' });
    set('/system/license', { 'system-id': serial, level: 'p1', deadline: '' });
  }
  state.table('/system/clock').single();
  set('/system/resource', {});
  set('/radius/incoming', { accept: 'false', port: '3799' });
  set('/ip/dns', {
    servers: '8.8.8.8,1.1.1.1',
    'dynamic-servers': '192.168.1.1',
    'allow-remote-requests': 'true',
    'cache-size': '2048KiB',
  });

  // ---- interfaces ----------------------------------------------------------
  const iface = state.table('/interface');
  const eth = state.table('/interface/ethernet');
  const macs: string[] = [];
  for (let i = 1; i <= board.ethernetPorts; i++) {
    const mac = rng.mac(board.macPrefix);
    macs.push(mac);
    const name = `ether${i}`;
    const running = i <= 2 ? 'true' : 'false';
    iface.insert({
      name,
      'default-name': name,
      type: 'ether',
      mtu: '1500',
      'actual-mtu': '1500',
      'mac-address': mac,
      running,
      disabled: 'false',
      ...(i === 1 ? { comment: 'WAN' } : {}),
    });
    eth.insert({
      name,
      'default-name': name,
      mtu: '1500',
      'mac-address': mac,
      'orig-mac-address': mac,
      arp: 'enabled',
      'auto-negotiation': 'true',
      speed: '100Mbps',
      running,
      slave: 'false',
      disabled: 'false',
    });
  }
  iface.insert({
    name: 'bridge-hotspot',
    type: 'bridge',
    mtu: 'auto',
    'actual-mtu': '1500',
    'mac-address': macs[1] ?? rng.mac(),
    running: 'true',
    disabled: 'false',
  });

  // ---- IP ------------------------------------------------------------------
  const addr = state.table('/ip/address');
  addr.insert({
    address: '192.168.1.23/24',
    network: '192.168.1.0',
    interface: 'ether1',
    'actual-interface': 'ether1',
    invalid: 'false',
    dynamic: 'true',
    disabled: 'false',
  });
  addr.insert({
    address: `${HOTSPOT_NET}.1/24`,
    network: `${HOTSPOT_NET}.0`,
    interface: 'bridge-hotspot',
    'actual-interface': 'bridge-hotspot',
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
    comment: 'hotspot network',
  });
  state.table('/ip/route').insert({
    'dst-address': '0.0.0.0/0',
    gateway: '192.168.1.1',
    // RouterOS 7 names the gateway's interface in immediate-gw; 6 has no such property and says it
    // in gateway-status instead.
    ...(caps.version.major >= 7
      ? { 'immediate-gw': '192.168.1.1%ether1' }
      : { 'gateway-status': '192.168.1.1 reachable via  ether1' }),
    distance: '1',
    active: 'true',
    dynamic: 'true',
    static: 'false',
    disabled: 'false',
  });
  state.table('/ip/pool').insert({ name: 'hs-pool-1', ranges: `${HOTSPOT_NET}.2-${HOTSPOT_NET}.254` });
  state.table('/ip/dhcp-server').insert({
    name: 'dhcp1',
    interface: 'bridge-hotspot',
    'lease-time': '1h',
    'address-pool': 'hs-pool-1',
    authoritative: 'true',
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
  });
  for (const [i, svc] of (
    [
      ['telnet', '23'],
      ['ftp', '21'],
      ['www', '80'],
      ['ssh', '22'],
      ['www-ssl', '443'],
      ['api', '8728'],
      ['winbox', '8291'],
      ['api-ssl', '8729'],
    ] as const
  ).entries()) {
    state.table('/ip/service').insert({
      name: svc[0],
      port: svc[1],
      address: '',
      invalid: 'false',
      disabled: i === 0 || i === 4 ? 'true' : 'false',
    });
  }

  // ---- hotspot -------------------------------------------------------------
  state.table('/ip/hotspot/profile').insert({
    name: 'default',
    'hotspot-address': '0.0.0.0',
    'dns-name': '',
    'html-directory': 'hotspot',
    'login-by': 'cookie,http-chap',
    'use-radius': 'false',
    default: 'true',
  });
  state.table('/ip/hotspot/profile').insert({
    name: 'hsprof1',
    'hotspot-address': `${HOTSPOT_NET}.1`,
    'dns-name': 'wifi.zone',
    'html-directory': 'hotspot',
    'login-by': 'cookie,http-chap,http-pap',
    'use-radius': 'false',
    'radius-accounting': 'true',
    'radius-interim-update': 'received',
    default: 'false',
  });
  state.table('/ip/hotspot').insert({
    name: 'hotspot1',
    interface: 'bridge-hotspot',
    'address-pool': 'hs-pool-1',
    profile: 'hsprof1',
    'idle-timeout': '5m',
    'keepalive-timeout': 'none',
    'addresses-per-mac': '2',
    invalid: 'false',
    HTTPS: 'false',
    disabled: 'false',
  });

  const profiles = options.profiles ?? DEFAULT_PROFILES;
  const upTable = state.table('/ip/hotspot/user/profile');
  upTable.insert({
    name: 'default',
    'idle-timeout': 'none',
    'keepalive-timeout': '2m',
    'status-autorefresh': '1m',
    'shared-users': '1',
    'add-mac-cookie': 'true',
    'mac-cookie-timeout': '3d',
    'transparent-proxy': 'false',
    default: 'true',
  });
  for (const p of profiles) {
    upTable.insert({
      name: p.name,
      'address-pool': 'hs-pool-1',
      'idle-timeout': 'none',
      'keepalive-timeout': '2m',
      'status-autorefresh': '1m',
      'shared-users': '1',
      'rate-limit': p.rateLimit,
      'add-mac-cookie': 'true',
      'mac-cookie-timeout': p.validity,
      'on-login': `:put (",rem,${p.price},${p.validity},${p.price},,Disable,"); # ticket-manager`,
      'parent-queue': 'none',
      'transparent-proxy': 'false',
      default: 'false',
    });
  }

  const users = state.table('/ip/hotspot/user');
  users.insert({
    name: 'default-trial',
    profile: 'default',
    uptime: '0s',
    'bytes-in': '0',
    'bytes-out': '0',
    'packets-in': '0',
    'packets-out': '0',
    dynamic: 'false',
    disabled: 'false',
    default: 'true',
  });
  // vouchers created and deleted over months leave the id counter well past 1
  users.skipIds(rng.int(0x10, 0x40));
  const resellers =
    options.resellers ??
    (options.resellerFleet
      ? ['awa', 'Moussa', 'fatou', 'khady', ...NON_RESELLER_TAGS]
      : ['awa', 'moussa', 'fatou']);
  const resellerRatio = options.resellerCommentRatio ?? 0.3;
  const userCount = options.hotspotUsers ?? 40;
  const batchDate = new Date(now.getTime() - 12 * 86400_000);
  const batchTag = `vc-${rng.int(100, 999)}-${String(batchDate.getUTCMonth() + 1).padStart(2, '0')}.${String(batchDate.getUTCDate()).padStart(2, '0')}.${String(batchDate.getUTCFullYear()).slice(2)}`;
  const created: Array<{ name: string; profile: SeedProfile | undefined }> = [];
  const taken = new Set<string>(['default-trial']);
  for (let i = 0; i < userCount; i++) {
    let code = rng.string(rng.int(6, 8), CODE_ALPHABET);
    while (taken.has(code)) code = rng.string(rng.int(6, 8), CODE_ALPHABET);
    taken.add(code);
    const profile = profiles.length > 0 ? rng.pick(profiles) : undefined;
    const used = rng.chance(0.35);
    const limitSeconds = profile ? (parseValiditySeconds(profile.validity) ?? 3600) : 3600;
    const uptime = used ? rng.int(60, limitSeconds) : 0;
    const comment =
      rng.chance(resellerRatio) && resellers.length > 0
        ? `vendu par ${rng.pick(resellers)}`
        : rng.chance(0.6)
          ? batchTag
          : undefined;
    const bytesIn = used ? rng.int(100_000, 400_000_000) : 0;
    const bytesOut = used ? rng.int(1_000_000, 2_000_000_000) : 0;
    users.insert({
      server: 'all',
      name: code,
      // voucher mode: the password is the code itself on most apps; some print a PIN
      password: rng.chance(0.8) ? code : String(rng.int(1000, 9999)),
      profile: profile?.name ?? 'default',
      'limit-uptime': profile?.validity ?? '1h',
      uptime: formatDuration(uptime),
      'bytes-in': String(bytesIn),
      'bytes-out': String(bytesOut),
      'packets-in': String(Math.floor(bytesIn / 600)),
      'packets-out': String(Math.floor(bytesOut / 1200)),
      dynamic: 'false',
      disabled: 'false',
      ...(comment ? { comment } : {}),
    });
    created.push({ name: code, profile });
  }
  for (const extra of options.users ?? [])
    users.insert({
      profile: 'default',
      uptime: '0s',
      'bytes-in': '0',
      'bytes-out': '0',
      'packets-in': '0',
      'packets-out': '0',
      dynamic: 'false',
      disabled: 'false',
      ...extra,
    });
  const report: SeedReport = { resellers: options.resellerFleet ? seedResellerFleet(state, serial) : [] };

  // ---- who is online ----------------------------------------------------------
  const active = state.table('/ip/hotspot/active');
  const arp = state.table('/ip/arp');
  const leases = state.table('/ip/dhcp-server/lease');
  const queues = state.table('/queue/simple');
  const online = created.slice(0, Math.min(options.activeSessions ?? 5, created.length));
  const leaseCount = Math.max(options.dhcpLeases ?? 8, online.length);
  const clients: Array<{ ip: string; mac: string }> = [];
  for (let i = 0; i < leaseCount; i++) {
    const ip = `${HOTSPOT_NET}.${254 - i}`;
    const mac = rng.mac();
    clients.push({ ip, mac });
    leases.insert({
      address: ip,
      'mac-address': mac,
      'client-id': `1:${mac.toLowerCase()}`,
      'address-lists': '',
      server: 'dhcp1',
      'dhcp-option': '',
      status: 'bound',
      'expires-after': formatDuration(rng.int(300, 3600)),
      'last-seen': formatDuration(rng.int(5, 300)),
      'active-address': ip,
      'active-mac-address': mac,
      'active-client-id': `1:${mac.toLowerCase()}`,
      'active-server': 'dhcp1',
      'host-name': rng.pick([
        'android-5f2c',
        'iPhone',
        'Galaxy-A12',
        'DESKTOP-7QK2',
        'TECNO-SPARK',
        'itel-A56',
      ]),
      radius: 'false',
      dynamic: 'true',
      blocked: 'false',
      disabled: 'false',
    });
    arp.insert({
      address: ip,
      'mac-address': mac,
      interface: 'bridge-hotspot',
      invalid: 'false',
      DHCP: 'true',
      dynamic: 'true',
      published: 'false',
      complete: 'true',
      disabled: 'false',
    });
  }
  arp.insert({
    address: '192.168.1.1',
    'mac-address': rng.mac(),
    interface: 'ether1',
    invalid: 'false',
    DHCP: 'false',
    dynamic: 'true',
    published: 'false',
    complete: 'true',
    disabled: 'false',
  });
  online.forEach((u, i) => {
    const client = clients[i];
    if (!client) return;
    const up = rng.int(60, 3000);
    active.insert({
      server: 'hotspot1',
      user: u.name,
      domain: '',
      address: client.ip,
      'mac-address': client.mac,
      'login-by': 'http-chap',
      uptime: formatDuration(up),
      'session-time-left': formatDuration(
        Math.max(60, (parseValiditySeconds(u.profile?.validity ?? '1h') ?? 3600) - up),
      ),
      'idle-time': '0s',
      'keepalive-timeout': '2m',
      'bytes-in': String(rng.int(1e5, 5e7)),
      'bytes-out': String(rng.int(1e6, 3e8)),
      'packets-in': String(rng.int(100, 50000)),
      'packets-out': String(rng.int(100, 90000)),
      radius: 'false',
      blocked: 'false',
    });
    queues.insert({
      name: `<hotspot-${u.name}>`,
      target: `${client.ip}/32`,
      parent: 'none',
      'max-limit': u.profile?.rateLimit ?? '0/0',
      invalid: 'false',
      dynamic: 'true',
      disabled: 'false',
      comment: '',
    });
  });

  // ---- firewall: what the hotspot adds dynamically, plus the site masquerade --
  const nat = state.table('/ip/firewall/nat');
  nat.insert({
    chain: 'pre-hotspot',
    action: 'accept',
    'dst-address-type': '!local',
    hotspot: 'auth',
    bytes: '0',
    packets: '0',
    invalid: 'false',
    dynamic: 'true',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
    comment: 'place hotspot rules here',
  });
  nat.insert({
    chain: 'dstnat',
    action: 'jump',
    'jump-target': 'hotspot',
    hotspot: 'from-client',
    bytes: '0',
    packets: '0',
    invalid: 'false',
    dynamic: 'true',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
  });
  nat.insert({
    chain: 'srcnat',
    action: 'masquerade',
    'out-interface': 'ether1',
    bytes: String(rng.int(1e8, 9e9)),
    packets: String(rng.int(1e5, 9e6)),
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
    comment: 'defconf: masquerade',
  });
  state.table('/ip/firewall/filter').insert({
    chain: 'input',
    action: 'accept',
    'connection-state': 'established,related,untracked',
    bytes: '0',
    packets: '0',
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
    comment: 'defconf: accept established,related,untracked',
  });
  state.table('/tool/netwatch').insert({
    host: '8.8.8.8',
    type: 'simple',
    interval: '1m',
    timeout: '1s',
    status: 'up',
    since: formatDateTime(caps, new Date(now.getTime() - 7200_000)),
    disabled: 'false',
    comment: 'internet',
  });

  // ---- sales recorded by the local ticket-manager app ---------------------------
  const scripts = state.table('/system/script');
  scripts.skipIds(rng.int(0x2, 0x20));
  const saleCount = options.salesScripts ?? 20;
  for (let i = 0; i < saleCount; i++) {
    const sold = created[i % Math.max(1, created.length)];
    const profile = sold?.profile ?? profiles[0];
    const at = new Date(now.getTime() - rng.int(0, 30 * 86400) * 1000);
    const client = clients[i % Math.max(1, clients.length)] ?? { ip: `${HOTSPOT_NET}.200`, mac: rng.mac() };
    const comment =
      rng.chance(resellerRatio) && resellers.length > 0 ? `vendu par ${rng.pick(resellers)}` : batchTag;
    // every fifth entry records a reconnection of an already sold voucher
    const reconnect = i % 5 === 3;
    const validity = profile?.validity ?? '1h';
    const fields = [
      reconnect ? '' : formatDate(caps, at),
      formatTime(at),
      sold?.name ?? rng.string(6, CODE_ALPHABET),
      String(profile?.price ?? 500),
      client.ip,
      client.mac,
      validity,
      profile?.name ?? 'default',
      comment,
    ];
    if (reconnect) {
      const expiry = new Date(at.getTime() + (parseValiditySeconds(validity) ?? 3600) * 1000);
      fields.push(formatDateTime(caps, expiry));
    }
    const month = formatDate({ ...caps, isoDates: false }, at).slice(0, 3);
    scripts.insert({
      name: fields.join(SALE_SEPARATOR),
      owner: `${month}${at.getUTCFullYear()}`,
      policy: 'ftp,reboot,read,write,policy,test,password,sniff,sensitive,romon',
      'dont-require-permissions': 'false',
      'run-count': '0',
      source: formatDate(caps, at),
      invalid: 'false',
      comment: 'mikhmon',
    });
  }
  for (const extra of options.scripts ?? [])
    scripts.insert({
      owner: 'admin',
      policy: 'read,write,test',
      'dont-require-permissions': 'false',
      'run-count': '0',
      source: '',
      invalid: 'false',
      ...extra,
    });

  // ---- files -----------------------------------------------------------------
  state.makeDirectory('skins');
  state.makeDirectory('hotspot');
  if (caps.version.major >= 7) state.makeDirectory('pub');
  const page = (title: string): Buffer =>
    Buffer.from(
      `<html><head><title>${title}</title></head><body>$(if error)<p>$(error)</p>$(endif)<form name="login" action="$(link-login-only)" method="post"><input name="username"/><input name="password" type="password"/></form></body></html>\n`,
      'latin1',
    );
  state.writeFile('hotspot/login.html', page('wifi zone - connexion'), true);
  state.writeFile('hotspot/status.html', page('wifi zone - statut'), true);
  state.writeFile('hotspot/md5.js', Buffer.from('function hexMD5(s){return s}\n', 'latin1'), true);
  state.writeFile('hotspot/favicon.ico', rng.bytes(1150), true);
  seedQos(state);
  state.markSeeded();
  return report;
}

function parseValiditySeconds(validity: string): number | undefined {
  const m = /^(\d+)([hdw])$/.exec(validity);
  if (!m) return undefined;
  const unit = m[2] === 'h' ? 3600 : m[2] === 'd' ? 86400 : 604800;
  return Number(m[1]) * unit;
}
