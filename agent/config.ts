// Router connection settings, from flags first, then environment variables, then defaults.
//
// Where the router is:
// - agent on a LAN box or a technician's laptop: the router's LAN address (e.g. 192.168.88.1);
// - agent in a RouterOS container: the router is the container's gateway, i.e. the router-side
//   address of the container's veth (e.g. 172.17.0.1 with `/interface/veth add address=172.17.0.2/24
//   gateway=172.17.0.1`). Pass that address, or `--router-host gateway` to read the default
//   gateway from /proc/net/route at start.
import { readFile } from 'node:fs/promises';
import { ipv4ToNumber, parseIpv4Block, type Ipv4Block } from './radius-relay/ipv4-cidr.js';

export interface RouterSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  /** RouterOS 6 has no /file/read: backups come back over FTP on this port. */
  ftpPort: number;
  /** Longest silence while waiting for a reply (per call). */
  timeoutMs: number;
  /** TCP connect plus API login. */
  connectTimeoutMs: number;
}

/** Router options as commander hands them over (all strings, all optional). */
export interface RouterFlags {
  routerHost?: string | undefined;
  routerPort?: string | undefined;
  routerUser?: string | undefined;
  routerPassword?: string | undefined;
  ftpPort?: string | undefined;
  routerTimeout?: string | undefined;
}

export const ROUTER_ENV = {
  host: 'TICKETNET_ROUTER_HOST',
  port: 'TICKETNET_ROUTER_PORT',
  user: 'TICKETNET_ROUTER_USER',
  password: 'TICKETNET_ROUTER_PASSWORD',
  ftpPort: 'TICKETNET_FTP_PORT',
  timeout: 'TICKETNET_ROUTER_TIMEOUT_MS',
} as const;

export const ROUTER_DEFAULTS = {
  host: '127.0.0.1',
  port: 8728,
  user: 'admin',
  password: '',
  ftpPort: 21,
  timeoutMs: 15_000,
  connectTimeoutMs: 10_000,
} as const;

/** `--router-host gateway`: use the default gateway (an agent in a RouterOS container). */
export const GATEWAY_HOST = 'gateway';

/** A setting has a value the agent cannot use. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Router settings from flags and environment; the password is best given as TICKETNET_ROUTER_PASSWORD (not in `ps`). */
export async function routerSettings(
  flags: RouterFlags,
  env: NodeJS.ProcessEnv = process.env,
  readRoutes: () => Promise<string> = () => readFile('/proc/net/route', 'utf8'),
): Promise<RouterSettings> {
  const pick = (flag: string | undefined, name: string): string | undefined =>
    flag !== undefined && flag !== ''
      ? flag
      : env[name] !== undefined && env[name] !== ''
        ? env[name]
        : undefined;
  let host = pick(flags.routerHost, ROUTER_ENV.host) ?? ROUTER_DEFAULTS.host;
  if (host === GATEWAY_HOST) host = await defaultGateway(readRoutes);
  const timeoutMs = integer(
    pick(flags.routerTimeout, ROUTER_ENV.timeout),
    ROUTER_DEFAULTS.timeoutMs,
    'router timeout',
    1,
    3_600_000,
  );
  return {
    host,
    port: integer(pick(flags.routerPort, ROUTER_ENV.port), ROUTER_DEFAULTS.port, 'router port', 1, 65535),
    user: pick(flags.routerUser, ROUTER_ENV.user) ?? ROUTER_DEFAULTS.user,
    // An empty password is RouterOS's factory default, so '' from the environment counts.
    password: flags.routerPassword ?? env[ROUTER_ENV.password] ?? ROUTER_DEFAULTS.password,
    ftpPort: integer(pick(flags.ftpPort, ROUTER_ENV.ftpPort), ROUTER_DEFAULTS.ftpPort, 'FTP port', 1, 65535),
    timeoutMs,
    connectTimeoutMs: Math.min(ROUTER_DEFAULTS.connectTimeoutMs, timeoutMs),
  };
}

function integer(text: string | undefined, fallback: number, what: string, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new ConfigError(`${what} must be a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** The IPv4 default gateway from /proc/net/route (hex, little-endian, as the kernel prints it). */
export async function defaultGateway(readRoutes: () => Promise<string>): Promise<string> {
  let table: string;
  try {
    table = await readRoutes();
  } catch (err) {
    throw new ConfigError(`--router-host gateway: cannot read the routing table (${(err as Error).message})`);
  }
  for (const line of table.split('\n').slice(1)) {
    const [, destination, gateway] = line.trim().split(/\s+/);
    if (destination !== '00000000' || gateway === undefined || !/^[0-9A-Fa-f]{8}$/.test(gateway)) continue;
    const n = parseInt(gateway, 16);
    return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join('.');
  }
  throw new ConfigError('--router-host gateway: no default route; give the router address instead');
}

// ---- RADIUS relay ----------------------------------------------------------------------------

/** Where the agent takes the router's RADIUS; null ports are not relayed. */
export interface RadiusRelaySettings {
  host: string;
  authPort: number | null;
  acctPort: number | null;
  /** Sources allowed to use the relay; empty = the router's own addresses (`/ip address`). */
  allow: Ipv4Block[];
  /** The relay's address as the router sees it, when the operator sets it (else worked out). */
  advertise?: string | undefined;
}

/** Relay options as commander hands them over. */
export interface RadiusRelayFlags {
  radiusRelayHost?: string | undefined;
  radiusRelayAuthPort?: string | undefined;
  radiusRelayAcctPort?: string | undefined;
  radiusRelayAllow?: string | undefined;
  radiusRelayAdvertise?: string | undefined;
}

export const RADIUS_RELAY_ENV = {
  host: 'TICKETNET_RADIUS_RELAY_HOST',
  authPort: 'TICKETNET_RADIUS_RELAY_AUTH_PORT',
  acctPort: 'TICKETNET_RADIUS_RELAY_ACCT_PORT',
  allow: 'TICKETNET_RADIUS_RELAY_ALLOW',
  advertise: 'TICKETNET_RADIUS_RELAY_ADVERTISE',
} as const;

export const RADIUS_RELAY_DEFAULTS = { host: '0.0.0.0', authPort: 1812, acctPort: 1813 } as const;

/** Relay settings from flags, then environment, then defaults; undefined when both ports are `off`. */
export function radiusRelaySettings(
  flags: RadiusRelayFlags,
  env: NodeJS.ProcessEnv = process.env,
): RadiusRelaySettings | undefined {
  const pick = (flag: string | undefined, name: string): string | undefined =>
    flag !== undefined && flag !== ''
      ? flag
      : env[name] !== undefined && env[name] !== ''
        ? env[name]
        : undefined;
  const port = (text: string | undefined, fallback: number, what: string): number | null =>
    text?.trim().toLowerCase() === 'off' ? null : integer(text, fallback, what, 0, 65535);
  const authPort = port(
    pick(flags.radiusRelayAuthPort, RADIUS_RELAY_ENV.authPort),
    RADIUS_RELAY_DEFAULTS.authPort,
    'RADIUS relay auth port',
  );
  const acctPort = port(
    pick(flags.radiusRelayAcctPort, RADIUS_RELAY_ENV.acctPort),
    RADIUS_RELAY_DEFAULTS.acctPort,
    'RADIUS relay accounting port',
  );
  if (authPort === null && acctPort === null) return undefined;
  const host = pick(flags.radiusRelayHost, RADIUS_RELAY_ENV.host) ?? RADIUS_RELAY_DEFAULTS.host;
  if (ipv4ToNumber(host) === undefined)
    throw new ConfigError(`RADIUS relay host must be an IPv4 address, got "${host}"`);
  const allowText = pick(flags.radiusRelayAllow, RADIUS_RELAY_ENV.allow) ?? '';
  const allow: Ipv4Block[] = [];
  for (const item of allowText.split(',').filter((s) => s.trim() !== '')) {
    const block = parseIpv4Block(item);
    if (!block)
      throw new ConfigError(`RADIUS relay allow-list: "${item.trim()}" is not an IPv4 address or CIDR block`);
    allow.push(block);
  }
  const advertise = pick(flags.radiusRelayAdvertise, RADIUS_RELAY_ENV.advertise);
  if (advertise !== undefined && ipv4ToNumber(advertise) === undefined)
    throw new ConfigError(`RADIUS relay advertised address must be an IPv4 address, got "${advertise}"`);
  return { host, authPort, acctPort, allow, ...(advertise !== undefined ? { advertise } : {}) };
}
