// `hotspot.users.remove`: one batch of the migration's removal of local users, between two router
// counts. The agent reports what it counted and what it sent; whether the batch really went is the
// controller's call from the counts, never the removal's `!done` (a router can answer `!done` and
// keep the users). Sent again with the same names it removes only what is still there.
import { BUILT_IN_HOTSPOT_USER } from '../../protocol/index.js';
import type { CommandOutput } from '../../protocol/index.js';
import {
  HOTSPOT_USER_MENU,
  callOptions,
  findByNames,
  trapMessage,
} from '../routeros/hotspot-user-inventory.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';

type RemoveOutput = CommandOutput<'hotspot.users.remove'>;

/** Router count, or the trap's message; anything but a trap (link lost, deadline) is thrown. */
async function countOrTrap(
  router: RouterConnection,
  call: RouterCallOptions,
): Promise<{ count: number } | { error: string }> {
  try {
    return { count: await router.count(HOTSPOT_USER_MENU, undefined, call) };
  } catch (err) {
    const message = trapMessage(err);
    if (message === undefined) throw err;
    return { error: message.slice(0, 1000) };
  }
}

export async function removeHotspotUsers(
  router: RouterConnection,
  options: RouterCallOptions & { names: readonly string[] },
): Promise<RemoveOutput> {
  const call = callOptions(options);
  const before = await countOrTrap(router, call);
  if ('error' in before) {
    // without a count before, the controller could not tell what a removal did: remove nothing
    return {
      count_before: null,
      count_after: null,
      count_error: before.error,
      requested: 0,
      absent: 0,
      spared: 0,
    };
  }

  const wanted = new Set(options.names);
  const found = await findByNames(router, HOTSPOT_USER_MENU, [...wanted], call);
  const ids: string[] = [];
  let absent = 0;
  let spared = 0;
  for (const name of wanted) {
    const user = found.get(name);
    if (name === BUILT_IN_HOTSPOT_USER || user?.builtIn) spared++;
    else if (user === undefined) absent++;
    else ids.push(user.id);
  }

  // a trap here fails the command: the controller replays the batch, and what went is absent then
  if (ids.length > 0) await router.remove(HOTSPOT_USER_MENU, ids, call);

  const after = await countOrTrap(router, call);
  return {
    count_before: before.count,
    count_after: 'count' in after ? after.count : null,
    ...('error' in after ? { count_error: after.error } : {}),
    requested: ids.length,
    absent,
    spared,
  };
}
