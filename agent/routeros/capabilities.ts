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
    properties: {
      routeGatewayInterface: v7 ? 'immediate-gw' : 'gateway-status',
      licenseId: v7 ? ['system-id', 'software-id'] : ['software-id'],
    },
  };
}
