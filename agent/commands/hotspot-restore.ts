// `hotspot.profiles.restore` and `hotspot.users.restore`: the return to local accounts puts the
// backed-up profiles, then the users in batches of 40, back into the router. Each entry is set when
// its name exists and added otherwise, so a batch replayed after a lost link (or after a trap midway)
// ends in the same router state. One print of the existing names per batch, matched here.
import { BUILT_IN_HOTSPOT_USER } from '../../protocol/index.js';
import type { CommandOutput, CommandParams } from '../../protocol/index.js';
import { HOTSPOT_USER_MENU, callOptions, findByNames } from '../routeros/hotspot-user-inventory.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';

type RestoreOutput = CommandOutput<'hotspot.users.restore'>;
type UserBackup = CommandParams<'hotspot.users.restore'>['users'][number];
type ProfileBackup = CommandParams<'hotspot.profiles.restore'>['profiles'][number];
type Props = Record<string, string | number | boolean>;

export const HOTSPOT_PROFILE_MENU = '/ip/hotspot/user/profile';

/**
 * A duration as RouterOS 6 and 7 both read it: whole seconds with the unit (`3600s`). A bare
 * number is seconds on RouterOS too, but the unit leaves no doubt.
 */
export function rosSeconds(seconds: number): string {
  return `${Math.max(0, Math.floor(seconds))}s`;
}

/** Existing entries of a menu among `names`: name → id, and whether it is a built-in hotspot user. */
async function existingByName(
  router: RouterConnection,
  menu: string,
  names: readonly string[],
  call: RouterCallOptions,
): Promise<Map<string, { id: string; builtIn: boolean }>> {
  return findByNames(router, menu, names, call);
}

/** The profile fields given; absent ones are not sent, so they keep the router's value. */
function profileProps(p: ProfileBackup): Props {
  const props: Props = {};
  if (p.rate_limit !== undefined) props['rate-limit'] = p.rate_limit;
  if (p.shared_users !== undefined) props['shared-users'] = p.shared_users;
  if (p.session_timeout !== undefined) props['session-timeout'] = rosSeconds(p.session_timeout);
  return props;
}

export async function restoreHotspotProfiles(
  router: RouterConnection,
  options: RouterCallOptions & { profiles: readonly ProfileBackup[] },
): Promise<RestoreOutput> {
  const call = callOptions(options);
  const existing = await existingByName(
    router,
    HOTSPOT_PROFILE_MENU,
    options.profiles.map((p) => p.name),
    call,
  );
  let added = 0;
  let updated = 0;
  for (const profile of options.profiles) {
    const props = profileProps(profile);
    const found = existing.get(profile.name);
    if (found) {
      if (Object.keys(props).length > 0) await router.set(HOTSPOT_PROFILE_MENU, found.id, props, call);
      updated++;
    } else {
      await router.add(HOTSPOT_PROFILE_MENU, { name: profile.name, ...props }, call);
      added++;
    }
  }
  return { added, updated };
}

/**
 * Every backed-up field, the same for `add` and `set`, so a batch that adds a user and its replay
 * that sets it leave the very same entry. An absent field clears what the router holds (empty
 * text; 0 = no limit, as RouterOS documents for limit-uptime and limit-bytes-total). The usage
 * counters are read-only on RouterOS and are not sent.
 */
function userProps(u: UserBackup): Props {
  return {
    password: u.password ?? '',
    profile: u.profile,
    comment: u.comment ?? '',
    'limit-uptime': rosSeconds(u.limit_uptime ?? 0),
    'limit-bytes-total': u.limit_bytes_total ?? 0,
    disabled: u.disabled,
  };
}

export async function restoreHotspotUsers(
  router: RouterConnection,
  options: RouterCallOptions & { users: readonly UserBackup[] },
): Promise<RestoreOutput> {
  const call = callOptions(options);
  const existing = await existingByName(
    router,
    HOTSPOT_USER_MENU,
    options.users.map((u) => u.name),
    call,
  );
  let added = 0;
  let updated = 0;
  for (const user of options.users) {
    const found = existing.get(user.name);
    // the built-in user is the router's own: never overwritten, never created
    if (user.name === BUILT_IN_HOTSPOT_USER || found?.builtIn) continue;
    if (found) {
      await router.set(HOTSPOT_USER_MENU, found.id, userProps(user), call);
      updated++;
    } else {
      await router.add(HOTSPOT_USER_MENU, { name: user.name, ...userProps(user) }, call);
      added++;
    }
  }
  return { added, updated };
}
