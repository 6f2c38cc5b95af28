// Every RouterOS 6/7 difference the simulator models lives in this one table,
// so menus and handlers ask "does this version have X" instead of comparing
// version numbers. Entries marked "sim assumption" are our best reading of
// RouterOS behaviour, not verified on hardware.

export interface RouterOsVersion {
  major: number;
  minor: number;
  patch: number;
  /** As the router prints it, e.g. "6.49.10" or "7.19". */
  text: string;
}

export interface Capabilities {
  version: RouterOsVersion;
  /** `/system/resource` version field, e.g. "7.19 (stable)". */
  versionLabel: string;
  /** 7.18+: a print that matches nothing answers `!empty` before `!done`. */
  emptyReply: boolean;
  /** 7.0+: `/interface/wireguard` and `/interface/wireguard/peers` exist. */
  wireguard: boolean;
  /** 7.13+: `/file/read file= offset= chunk-size=` exists. */
  fileRead: boolean;
  /** 7.10+: dates print as 2025-01-31 instead of jan/31/2025. */
  isoDates: boolean;
  /** /file timestamp property: creation-time (v6..7.12), last-modified (7.13+, sim assumption). */
  fileTimeField: 'creation-time' | 'last-modified';
  /** /ping `time`: "12ms" on v6, "12ms345us" on v7. */
  pingMicroseconds: boolean;
  /** /system/routerboard `model`: "952Ui-5ac2nD" on v6, "RB952Ui-5ac2nD" on v7 (sim assumption). */
  routerboardModelPrefix: string;
  /** /system/routerboard `board-name` exists on v7 only (sim assumption). */
  routerboardBoardName: boolean;
  /** /system/resource: `bad-blocks` on v6, `factory-software` on v7. */
  resourceBadBlocks: boolean;
  resourceFactorySoftware: boolean;
  /**
   * 7.15+: /radius has `require-message-auth` (BlastRADIUS mitigation); the NAS
   * then puts Message-Authenticator on every Access-Request and, with the default
   * `yes-for-request-resp`, drops replies without a valid one. Older versions send
   * none (sim assumption, matching pre-BlastRADIUS captures).
   */
  radiusRequireMessageAuth: boolean;
  /** v7 scripts accept `/ip/hotspot/user/add`; v6 only the spaced `/ip hotspot user add`. */
  scriptSlashPaths: boolean;
  /** Text before an /import failure: "Script Error: " on v7 (sim assumption for the trap), none on v6. */
  importErrorPrefix: string;
  /** Architecture name v7 prints for 64-bit ARM; v6 has no arm64 build. */
  arm64: boolean;
  /**
   * Policies a `/user group` may grant, in the order `print` lists them. v6 has `dude` and
   * `tikapp`, v7 `rest-api` instead.
   */
  userPolicies: readonly string[];
  /**
   * The container package (`/container`, `/container/envs`, `/container/config`,
   * `/interface/veth`): v7 only; modelled from 7.4, when envs took their key= layout.
   */
  container: boolean;
  /** `:rndstr` and `:rndnum` exist (v7; sim assumption: from 7.0, the exact release is not verified). */
  scriptRandom: boolean;
  /** Property of `/container/envs` naming the list an env belongs to: `name` (7.4..7.19), `list` (7.20+). */
  containerEnvListProp: 'name' | 'list';
  /** 7.12+: Back To Home under `/ip/cloud` (`back-to-home-vpn`); the hardware must be arm, arm64 or tile too. */
  backToHome: boolean;
  /** Back To Home per-user menu: none before 7.14, `back-to-home-users` 7.14..7.17, `back-to-home-user` 7.18+. */
  backToHomeUsersMenu: '/ip/cloud/back-to-home-users' | '/ip/cloud/back-to-home-user' | null;
  /**
   * 7.4+: `/tool/netwatch` has probe types; `type=icmp` sends a series of echoes and prints their
   * round trips and loss (`rtt-avg`, `rtt-jitter`, `loss-percent`…). Before, only up or down.
   */
  netwatchIcmp: boolean;
}

const V6_POLICIES = [
  'local',
  'telnet',
  'ssh',
  'ftp',
  'reboot',
  'read',
  'write',
  'policy',
  'test',
  'winbox',
  'password',
  'web',
  'sniff',
  'sensitive',
  'api',
  'romon',
  'dude',
  'tikapp',
];
const V7_POLICIES = [...V6_POLICIES.slice(0, 16), 'rest-api'];

export function parseVersion(text: string): RouterOsVersion {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`RouterOS version must look like 6.49 or 7.19.1, got "${text}"`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), text: text.trim() };
}

function atLeast(v: RouterOsVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

export function capabilitiesFor(versionText: string): Capabilities {
  const v = parseVersion(versionText);
  const v7 = v.major >= 7;
  return {
    version: v,
    // 6.x routers still in the field are on the long-term channel
    versionLabel: `${v.text} (${v7 ? 'stable' : 'long-term'})`,
    emptyReply: atLeast(v, 7, 18),
    wireguard: v7,
    fileRead: atLeast(v, 7, 13),
    isoDates: atLeast(v, 7, 10),
    fileTimeField: atLeast(v, 7, 13) ? 'last-modified' : 'creation-time',
    pingMicroseconds: v7,
    routerboardModelPrefix: v7 ? 'RB' : '',
    routerboardBoardName: v7,
    resourceBadBlocks: !v7,
    resourceFactorySoftware: v7,
    radiusRequireMessageAuth: atLeast(v, 7, 15),
    scriptSlashPaths: v7,
    importErrorPrefix: v7 ? 'Script Error: ' : '',
    arm64: v7,
    userPolicies: v7 ? V7_POLICIES : V6_POLICIES,
    container: atLeast(v, 7, 4),
    scriptRandom: v7,
    containerEnvListProp: atLeast(v, 7, 20) ? 'list' : 'name',
    backToHome: atLeast(v, 7, 12),
    backToHomeUsersMenu: atLeast(v, 7, 18)
      ? '/ip/cloud/back-to-home-user'
      : atLeast(v, 7, 14)
        ? '/ip/cloud/back-to-home-users'
        : null,
    netwatchIcmp: atLeast(v, 7, 4),
  };
}
