// The router's own accounts (`/user`, `/user group`): the factory groups and
// `admin`, the policy list as RouterOS prints it, and the check every login
// (API, FTP) goes through.
import { RosTrap } from './command-types.js';
import type { SimRecord } from './menu-table.js';
import { formatDateTime } from './ros-format.js';
import type { RouterState } from './router-state.js';

/** Policies the factory groups do not grant, per group. */
const DEFAULT_GROUPS: ReadonlyArray<{ name: string; withheld: readonly string[] }> = [
  { name: 'read', withheld: ['ftp', 'write', 'policy'] },
  { name: 'write', withheld: ['ftp', 'policy'] },
  { name: 'full', withheld: [] },
];

/**
 * Normalises a `policy=` value the way `print` shows it: the granted policies in
 * the router's order, then every other one with `!`. An unknown name traps.
 */
export function normalisePolicy(known: readonly string[], text: string): string {
  const granted = new Set<string>();
  for (const raw of text.split(',')) {
    const word = raw.trim();
    if (word === '') continue;
    const name = word.startsWith('!') ? word.slice(1) : word;
    // sim assumption: the router's exact message is not verified
    if (!known.includes(name)) throw new RosTrap('invalid value for argument policy');
    if (word.startsWith('!')) granted.delete(name);
    else granted.add(name);
  }
  const on = known.filter((p) => granted.has(p));
  const off = known.filter((p) => !granted.has(p)).map((p) => `!${p}`);
  return [...on, ...off].join(',');
}

/** The factory groups and the administrator account the simulator was started with. */
export function seedUserAccounts(state: RouterState, username: string, password: string): void {
  const known = state.caps.userPolicies;
  const groups = state.table('/user/group');
  for (const g of DEFAULT_GROUPS) {
    const policy = normalisePolicy(known, known.filter((p) => !g.withheld.includes(p)).join(','));
    groups.insert({ name: g.name, policy, skin: 'default' });
  }
  state.table('/user').insert({
    name: username,
    group: 'full',
    address: '',
    password,
    disabled: 'false',
    comment: 'system default user',
  });
}

/** Whether the group named `groupName` grants `policy`. */
function grants(state: RouterState, groupName: string, policy: string): boolean {
  const group = state.table('/user/group').findBy('name', groupName);
  return (group?.props.policy ?? '').split(',').includes(policy);
}

/**
 * The enabled account `name` whose group grants `policy` and whose password passes
 * `check`, or undefined. A success stamps `last-logged-in`. The `address` restriction
 * is not applied: every client of the simulator comes from the loopback (sim limitation).
 */
export function authenticate(
  state: RouterState,
  name: string | undefined,
  policy: string,
  check: (password: string) => boolean,
): SimRecord | undefined {
  if (name === undefined) return undefined;
  const users = state.table('/user');
  const user = users.findBy('name', name);
  if (!user || user.props.disabled === 'true') return undefined;
  if (!grants(state, user.props.group ?? '', policy)) return undefined;
  if (!check(user.props.password ?? '')) return undefined;
  users.update(user, { 'last-logged-in': formatDateTime(state.caps, state.identity.now()) });
  return user;
}

/** Refuses to remove a group some user still belongs to (sim assumption for the message). */
export function checkGroupUnused(state: RouterState, group: SimRecord): void {
  if (state.table('/user').findBy('group', group.props.name ?? ''))
    throw new RosTrap('failure: group is used by some user');
}
