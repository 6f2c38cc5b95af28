import type { HotspotProfile, HotspotUser } from '../../protocol/index.js';
import { isBuiltInHotspotUser } from './hotspot-user-inventory.js';
import type { RouterCallOptions, RouterConnection } from './router-connection.js';
import { parseRouterOsBoolean, parseRouterOsDuration, parseRouterOsInteger } from './ros-values.js';

// The shapes are the protocol's: what the agent reads is what the catalogue's output checks.
export type HotspotUserExport = HotspotUser;
export type HotspotProfileExport = HotspotProfile;

export interface HotspotExport {
  users: HotspotUserExport[];
  profiles?: HotspotProfileExport[];
  /** Number of users. */
  count: number;
}

const USER_PROPS = [
  'name',
  'password',
  'profile',
  'comment',
  'limit-uptime',
  'limit-bytes-total',
  'disabled',
  'default',
  'uptime',
  'bytes-in',
  'bytes-out',
];
const PROFILE_PROPS = ['name', 'rate-limit', 'shared-users', 'session-timeout'];

/** A positive whole number of seconds, or undefined for none/zero/unparsable. */
function seconds(text: string | undefined): number | undefined {
  const s = text === undefined ? undefined : parseRouterOsDuration(text);
  return s !== undefined && s >= 1 ? Math.floor(s) : undefined;
}

function positiveInt(text: string | undefined): number | undefined {
  const n = parseRouterOsInteger(text);
  return n !== undefined && n > 0 ? n : undefined;
}

export function toHotspotUser(r: Readonly<Record<string, string>>): HotspotUserExport {
  const user: HotspotUserExport = {
    name: r.name ?? '',
    profile: r.profile || 'default',
    disabled: parseRouterOsBoolean(r.disabled) ?? false,
  };
  if (r.password) user.password = r.password;
  if (r.comment) user.comment = r.comment;
  const uptime = seconds(r['limit-uptime']);
  if (uptime !== undefined) user.limit_uptime = uptime;
  const bytes = positiveInt(r['limit-bytes-total']);
  if (bytes !== undefined) user.limit_bytes_total = bytes;
  const used = seconds(r.uptime);
  if (used !== undefined) user.uptime_seconds = used;
  const bytesIn = positiveInt(r['bytes-in']);
  if (bytesIn !== undefined) user.bytes_in = bytesIn;
  const bytesOut = positiveInt(r['bytes-out']);
  if (bytesOut !== undefined) user.bytes_out = bytesOut;
  return user;
}

export function toHotspotProfile(r: Readonly<Record<string, string>>): HotspotProfileExport {
  const profile: HotspotProfileExport = { name: r.name ?? '' };
  if (r['rate-limit']) profile.rate_limit = r['rate-limit'];
  const shared = positiveInt(r['shared-users']); // "unlimited" has no number
  if (shared !== undefined) profile.shared_users = shared;
  const timeout = seconds(r['session-timeout']);
  if (timeout !== undefined) profile.session_timeout = timeout;
  return profile;
}

/**
 * Lists the hotspot users (vouchers), and their profiles when asked. Records
 * are converted as they stream in with only the exported properties
 * requested, so 15,000 users cost one compact object each, not raw replies.
 * The built-in `default-trial` user (default=true) is not a voucher and is left out.
 * Usage counters (uptime, bytes in/out) come along when not 0.
 */
export async function exportHotspotUsers(
  conn: RouterConnection,
  options: RouterCallOptions & { includeProfiles?: boolean } = {},
): Promise<HotspotExport> {
  const users: HotspotUserExport[] = [];
  const call = {
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  await conn.printEach(
    '/ip/hotspot/user',
    (r) => {
      if (isBuiltInHotspotUser(r) || !r.name) return;
      users.push(toHotspotUser(r));
    },
    { ...call, proplist: USER_PROPS },
  );
  const out: HotspotExport = { users, count: users.length };
  if (options.includeProfiles) out.profiles = await listHotspotProfiles(conn, options);
  return out;
}

/** The hotspot user profiles alone (the export's profile part, and `hotspot.profiles.list`). */
export async function listHotspotProfiles(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<HotspotProfileExport[]> {
  const profiles: HotspotProfileExport[] = [];
  await conn.printEach(
    '/ip/hotspot/user/profile',
    (r) => {
      if (r.name) profiles.push(toHotspotProfile(r));
    },
    {
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      proplist: PROFILE_PROPS,
    },
  );
  return profiles;
}
