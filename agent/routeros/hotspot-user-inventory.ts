// What the migration to RADIUS and the return to local accounts read of /ip/hotspot/user: the
// names of the vouchers (cheap on bytes: two properties per user) and the router's own count.
import { BUILT_IN_HOTSPOT_USER } from '../../protocol/commands.js';
import type { RouterCallOptions, RouterConnection } from './router-connection.js';
import { isRouterError } from './router-error.js';
import { parseRouterOsBoolean } from './ros-values.js';

export const HOTSPOT_USER_MENU = '/ip/hotspot/user';

/** Most names `listHotspotUserNames` returns (the `hotspot.users.names` output limit). */
export const MAX_HOTSPOT_USER_NAMES = 100_000;

/**
 * The user RouterOS creates itself (`default-trial`, printed with `default=true`): not a voucher,
 * never exported, removed nor restored. Either mark is enough, in case one is missing from a print.
 */
export function isBuiltInHotspotUser(record: Readonly<Record<string, string>>): boolean {
  return record.name === BUILT_IN_HOTSPOT_USER || parseRouterOsBoolean(record.default) === true;
}

/** The call options a RouterConnection call takes, without undefined members. */
export function callOptions(options: RouterCallOptions): RouterCallOptions {
  return {
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/** The router's message when `err` is a trap (ROUTER_TRAP); undefined for anything else. */
export function trapMessage(err: unknown): string | undefined {
  return isRouterError(err) && err.code === 'ROUTER_TRAP' ? err.message : undefined;
}

/**
 * Names of the hotspot users, built-in ones left out, in the router's order. One print of
 * `name,default` (not `count-only`); records are reduced to their name as they stream in.
 */
export async function listHotspotUserNames(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<{ names: string[]; count: number }> {
  const names: string[] = [];
  let over = false;
  await conn.printEach(
    HOTSPOT_USER_MENU,
    (r) => {
      if (!r.name || isBuiltInHotspotUser(r)) return;
      if (names.length < MAX_HOTSPOT_USER_NAMES) names.push(r.name);
      else over = true;
    },
    { ...callOptions(options), proplist: ['name', 'default'] },
  );
  if (over) throw new Error(`the router holds more than ${MAX_HOTSPOT_USER_NAMES} hotspot users`);
  return { names, count: names.length };
}

/**
 * How many users `listHotspotUserNames` would list: the same print, counted here so that only the
 * number crosses the agent link.
 */
export async function tallyHotspotUsers(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<{ count: number }> {
  let count = 0;
  await conn.printEach(
    HOTSPOT_USER_MENU,
    (r) => {
      if (r.name && !isBuiltInHotspotUser(r)) count++;
    },
    { ...callOptions(options), proplist: ['name', 'default'] },
  );
  return { count };
}

/** Entries of /ip/hotspot/user, built-in ones included, counted by the router (`print count-only`). */
export async function countHotspotUsers(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<{ count: number }> {
  return { count: await conn.count(HOTSPOT_USER_MENU, undefined, callOptions(options)) };
}

// Names per print: the router filters (`?name=… ?#|…`), in sentences of a modest size.
const NAMES_PER_PRINT = 100;

/**
 * The entries of a menu named in `names`: name → id, and whether it is a built-in hotspot user.
 * The router does the matching, so a batch costs its own entries, not a listing of the menu.
 */
export async function findByNames(
  router: RouterConnection,
  menu: string,
  names: readonly string[],
  call: RouterCallOptions,
): Promise<Map<string, { id: string; builtIn: boolean }>> {
  const found = new Map<string, { id: string; builtIn: boolean }>();
  for (let i = 0; i < names.length; i += NAMES_PER_PRINT) {
    const values = names.slice(i, i + NAMES_PER_PRINT);
    const wanted = new Set(values);
    await router.printEach(
      menu,
      (r) => {
        const id = r['.id'];
        if (r.name === undefined || id === undefined || !wanted.has(r.name) || found.has(r.name)) return;
        found.set(r.name, { id, builtIn: isBuiltInHotspotUser(r) });
      },
      { ...call, proplist: ['.id', 'name', 'default'], anyOf: { prop: 'name', values } },
    );
  }
  return found;
}
