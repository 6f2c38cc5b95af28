// Every RouterOS 6/7 difference the agent cares about, decided here from the
// version string and nowhere else: code asks `caps.fileTransfer`, never compares
// version numbers.

export interface RouterOsVersion {
  major: number;
  minor: number;
  patch: number;
  /** "beta4", "rc1" for pre-releases. */
  prerelease?: string;
  /** Release channel the router printed in brackets: stable, long-term, testing, development. */
  channel?: string;
  /** Bare version as RouterOS writes it, without the channel: "7.19", "6.49.10", "7.20beta4". */
  text: string;
}

export interface RouterCapabilities {
  version: RouterOsVersion;
  /** How a file on the router's flash comes back to the agent: `/file/read` (7.13+) or FTP. */
  fileTransfer: 'file-read' | 'ftp';
  /** `/interface/wireguard` exists (RouterOS 7 only). */
  wireguard: boolean;
  /**
   * Back To Home relay VPN under `/ip/cloud` (`back-to-home-vpn`), from 7.12, and only on arm, arm64
   * and tile hardware (`backToHomeArchitectures`). Its per-user entries came in 7.14 as
   * `/ip/cloud/back-to-home-users` and were renamed `/ip/cloud/back-to-home-user` in 7.18; before
   * 7.14 the one client profile is `/ip/cloud`'s `vpn-wireguard-client-config`.
   */
  backToHome: { available: boolean; usersMenu: string | null };
  /**
   * What a `/tool/netwatch` probe can test: a TCP connection to a port (`type=tcp-conn port=`, 7.4+),
   * or only an ICMP echo to the host (6.x and early 7: no `type`).
   */
  netwatchProbe: 'tcp-conn' | 'icmp';
  /**
   * 7.4+: a `type=icmp` netwatch probe sends a series of echoes on the router and prints the round
   * trips and loss of its last test (`rtt-avg`, `rtt-min`, `rtt-max`, `rtt-stdev`, `loss-percent`,
   * `sent-count`…; its `rtt-jitter` is max − min, not the gaps between successive echoes); before,
   * netwatch says only up or down and link quality needs `/ping`.
   */
  netwatchIcmp: boolean;
  /** Property names that differ between versions. */
  properties: {
    /**
     * `/ip/route` property naming the interface a gateway is reached through: v7 prints
     * `immediate-gw` (`192.168.1.1%ether1`), v6 `gateway-status` (`192.168.1.1 reachable via  ether1`).
     */
    routeGatewayInterface: 'immediate-gw' | 'gateway-status';
    /** `/system/license` ids to try, in order, for a serial on a CHR (which has no RouterBOARD serial). */
    licenseId: readonly string[];
  };
}

const VERSION_RE = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?((?:alpha|beta|rc)\d*)?\s*(?:\(([a-z-]+)\))?\s*$/i;

/** Parses `/system/resource` `version` ("7.19 (stable)", "6.49.10 (long-term)"); undefined when unrecognised. */
export function parseRouterOsVersion(text: string): RouterOsVersion | undefined {
  const m = VERSION_RE.exec(text);
  if (!m) return undefined;
  const [, major = '0', minor = '0', patch, prerelease, channel] = m;
  const bare = `${major}.${minor}${patch === undefined ? '' : `.${patch}`}${prerelease ?? ''}`;
  return {
    major: Number(major),
    minor: Number(minor),
    patch: Number(patch ?? 0),
    ...(prerelease ? { prerelease: prerelease.toLowerCase() } : {}),
    ...(channel ? { channel: channel.toLowerCase() } : {}),
    text: bare,
  };
}

// a pre-release counts as its release: features land in the betas of the
// version whose changelog announces them (e.g. !empty in the 7.18 betas)
function atLeast(v: RouterOsVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

/** The capability flags of a version (a parsed one, or the text the router printed). */
export function capabilitiesFor(version: RouterOsVersion | string): RouterCapabilities {
  const v = typeof version === 'string' ? parseRouterOsVersion(version) : version;
  if (!v) throw new RangeError(`unrecognised RouterOS version "${String(version)}"`);
  const v7 = v.major >= 7;
  return {
    version: v,
    // `/file/read file= offset= chunk-size=` exists from 7.13
    fileTransfer: atLeast(v, 7, 13) ? 'file-read' : 'ftp',
    wireguard: v7,
    backToHome: {
      available: atLeast(v, 7, 12),
      usersMenu: atLeast(v, 7, 18)
        ? '/ip/cloud/back-to-home-user'
        : atLeast(v, 7, 14)
          ? '/ip/cloud/back-to-home-users'
          : null,
    },
    netwatchProbe: atLeast(v, 7, 4) ? 'tcp-conn' : 'icmp',
    netwatchIcmp: atLeast(v, 7, 4),
    properties: {
      routeGatewayInterface: v7 ? 'immediate-gw' : 'gateway-status',
      licenseId: v7 ? ['system-id', 'software-id'] : ['software-id'],
    },
  };
}

/** Architectures (`architecture-name`) whose hardware runs Back To Home. */
export const BACK_TO_HOME_ARCHITECTURES: readonly string[] = ['arm', 'arm64', 'tile'];
