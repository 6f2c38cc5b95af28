// `hotspot.active.remove`: logs a user out of the hotspot by removing its `/ip/hotspot/active`
// entries (those at one address when given). RouterOS ends each session as an administrator's
// logout would. What happened is judged from a read of the list after the removal, not from the
// removal's reply: a router can answer `!done` and keep the session.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';

const ACTIVE_MENU = '/ip/hotspot/active';

type RemoveOutput = CommandOutput<'hotspot.active.remove'>;

async function matching(
  router: RouterConnection,
  user: string,
  address: string | undefined,
  call: RouterCallOptions,
): Promise<string[]> {
  const rows = await router.print(ACTIVE_MENU, {
    ...call,
    proplist: ['.id', 'user', 'address'],
    where: { user },
  });
  return rows
    .filter((r) => r.user === user && (address === undefined || r.address === address))
    .map((r) => r['.id'])
    .filter((id): id is string => typeof id === 'string');
}

export async function removeHotspotActive(
  router: RouterConnection,
  options: { user: string; address?: string | undefined; signal?: AbortSignal },
): Promise<RemoveOutput> {
  const call: RouterCallOptions = options.signal ? { signal: options.signal } : {};
  const ids = await matching(router, options.user, options.address, call);
  if (ids.length > 0) await router.remove(ACTIVE_MENU, ids, call);
  const after = await matching(router, options.user, options.address, call);
  return { found: ids.length, removed: Math.max(0, ids.length - after.length), remaining: after.length };
}
