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

/**
 * Sets each entry whose name the menu holds and adds the others (one print of the existing names).
 * An entry `spared` leaves the router as it is and is not counted.
 */
async function setOrAdd<E extends { name: string }>(
  router: RouterConnection,
  menu: string,
  entries: readonly E[],
  propsOf: (entry: E) => Props,
  call: RouterCallOptions,
  spared: (entry: E, found: { builtIn: boolean } | undefined) => boolean = () => false,
): Promise<RestoreOutput> {
  const existing = await findByNames(
    router,
    menu,
    entries.map((e) => e.name),
    call,
  );
  let added = 0;
  let updated = 0;
  for (const entry of entries) {
    const found = existing.get(entry.name);
    if (spared(entry, found)) continue;
    const props = propsOf(entry);
    if (found) {
      if (Object.keys(props).length > 0) await router.set(menu, found.id, props, call);
      updated++;
    } else {
      await router.add(menu, { name: entry.name, ...props }, call);
      added++;
    }
  }
  return { added, updated };
}

/** The profile fields given; absent ones are not sent, so they keep the router's value. */
function profileProps(p: ProfileBackup): Props {
  const props: Props = {};
  if (p.rate_limit !== undefined) props['rate-limit'] = p.rate_limit;
  if (p.shared_users !== undefined) props['shared-users'] = p.shared_users;
  if (p.session_timeout !== undefined) props['session-timeout'] = rosSeconds(p.session_timeout);
  return props;
}

export function restoreHotspotProfiles(
  router: RouterConnection,
  options: RouterCallOptions & { profiles: readonly ProfileBackup[] },
): Promise<RestoreOutput> {
  return setOrAdd(router, HOTSPOT_PROFILE_MENU, options.profiles, profileProps, callOptions(options));
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

export function restoreHotspotUsers(
  router: RouterConnection,
  options: RouterCallOptions & { users: readonly UserBackup[] },
): Promise<RestoreOutput> {
  // The built-in user is the router's own: never overwritten, never created.
  return setOrAdd(
    router,
    HOTSPOT_USER_MENU,
    options.users,
    userProps,
    callOptions(options),
    (user, found) => user.name === BUILT_IN_HOTSPOT_USER || found?.builtIn === true,
  );
}
