import { capabilitiesFor, parseRouterOsVersion } from './capabilities.js';
import type { RouterCapabilities } from './capabilities.js';
import type { RouterCallOptions, RouterConnection } from './router-connection.js';
import { RouterError } from './router-error.js';
import { parseRouterOsDuration, parseRouterOsInteger } from './ros-values.js';

/** What `router.facts` reports (field names as in the protocol). */
export interface RouterFacts {
  serial: string;
  identity: string;
  model: string;
  /** Bare version without the channel, e.g. "7.19" or "6.49.10". */
  routeros_version: string;
  architecture: string;
  board_name: string;
  free_hdd_bytes: number;
  total_hdd_bytes: number;
  uptime_seconds: number;
}

/** Placeholder for a fact the router does not give (the protocol wants non-empty labels). */
const UNKNOWN = 'unknown';

async function firstRecord(
  conn: RouterConnection,
  menu: string,
  options: RouterCallOptions,
): Promise<Record<string, string> | undefined> {
  return (await conn.print(menu, options))[0];
}

/** Same as firstRecord, but a menu this router lacks (a trap) reads as empty. */
async function optionalRecord(
  conn: RouterConnection,
  menu: string,
  options: RouterCallOptions,
): Promise<Record<string, string>> {
  try {
    return (await firstRecord(conn, menu, options)) ?? {};
  } catch (err) {
    if (err instanceof RouterError && err.code === 'ROUTER_TRAP') return {};
    throw err;
  }
}

/** The router's version and capability flags, from `/system/resource`; undefined when the version is unrecognised. */
export async function readCapabilities(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<RouterCapabilities | undefined> {
  const [resource] = await conn.print('/system/resource', { ...options, proplist: ['version'] });
  const version = parseRouterOsVersion(resource?.version ?? '');
  return version ? capabilitiesFor(version) : undefined;
}

function text(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** Identity, model, version, storage and uptime of the router. */
export async function readFacts(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<RouterFacts> {
  const [resource, identity, routerboard] = await Promise.all([
    firstRecord(conn, '/system/resource', options),
    firstRecord(conn, '/system/identity', options),
    optionalRecord(conn, '/system/routerboard', options),
  ]);
  if (!resource) throw new RouterError('ROUTER_TRAP', '/system/resource/print returned nothing');
  const versionText = resource.version ?? '';
  const version = parseRouterOsVersion(versionText);
  const caps = version ? capabilitiesFor(version) : undefined;

  // a CHR has no RouterBOARD serial: the licence id stands in for it
  let serial = text(routerboard['serial-number']);
  if (!serial) {
    const licence = await optionalRecord(conn, '/system/license', options);
    const ids = caps?.properties.licenseId ?? ['software-id', 'system-id'];
    serial = ids.map((p) => text(licence[p])).find((v) => v !== undefined);
  }

  const uptime = parseRouterOsDuration(resource.uptime ?? '');
  return {
    serial: serial ?? UNKNOWN,
    identity: identity?.name ?? '',
    model: text(routerboard.model) ?? text(resource['board-name']) ?? UNKNOWN,
    routeros_version: version?.text ?? (text(versionText.replace(/\s*\(.*\)\s*$/, '')) || UNKNOWN),
    architecture: text(resource['architecture-name']) ?? UNKNOWN,
    board_name: text(resource['board-name']) ?? UNKNOWN,
    free_hdd_bytes: parseRouterOsInteger(resource['free-hdd-space']) ?? 0,
    total_hdd_bytes: parseRouterOsInteger(resource['total-hdd-space']) ?? 0,
    uptime_seconds: uptime === undefined ? 0 : Math.floor(uptime),
  };
}
