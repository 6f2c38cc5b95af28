// Router connection settings, from flags first, then environment variables, then defaults.
//
// Where the router is:
// - agent on a LAN box or a technician's laptop: the router's LAN address (e.g. 192.168.88.1);
// - agent in a RouterOS container: the router is the container's gateway, i.e. the router-side
//   address of the container's veth (e.g. 172.17.0.1 with `/interface/veth add address=172.17.0.2/24
//   gateway=172.17.0.1`). Pass that address, or `--router-host gateway` to read the default
//   gateway from /proc/net/route at start.
import { readFile } from 'node:fs/promises';

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
