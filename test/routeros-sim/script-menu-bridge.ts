// Between the script evaluator and the command handlers the API uses: finds
// where the menu path of a script command ends and its verb begins, and runs
// the verb through the same handler an API client would reach, so menus,
// validation and faults behave the same from a script and from the API.
import { ACTIONS, MENU_VERBS } from './actions.js';
import { resolveCommand } from './command-dispatcher.js';
import { RosTrap } from './command-types.js';
import type { CommandContext, CommandRequest, CommandResult, SimContext } from './command-types.js';
import type { Item, Pos } from './script-parser.js';

/** A script-level failure, located at a line and column of the script. */
export class ScriptError extends Error {
  constructor(
    message: string,
    readonly pos: Pos,
    /** Errors RouterOS finds while parsing (bad command name, unknown argument) cannot be caught by on-error. */
    readonly syntax = false,
    /** `:error "x"` reports its own text without a location. */
    readonly located = true,
  ) {
    super(message);
  }
}

export type CommandLine =
  /** The statement only names a menu: later relative commands run there. */
  | { kind: 'menu'; path: string }
  /** `verb` of the menu at `menu` (or an action when `verb` is undefined), then its arguments. */
  | { kind: 'command'; menu: string; verb: string | undefined; verbPos: Pos; args: Item[] };

/** Every menu, action and every prefix of them ("/ip", "/ip/hotspot"...). */
export function pathTree(sim: SimContext): Set<string> {
  const tree = new Set<string>(['']);
  const full = [...sim.state.menuPaths(), ...Object.keys(ACTIONS)];
  for (const path of full) {
    const parts = path.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) tree.add(`/${parts.slice(0, i).join('/')}`);
  }
  return tree;
}

export function isAction(path: string): boolean {
  return ACTIONS[path] !== undefined;
}

/**
 * Splits a command's leading words into menu path and verb. `/ip hotspot
 * profile set` and (v7) `/ip/hotspot/profile/set` give the same result;
 * without a leading slash the path starts at the current menu.
 */
export function splitCommandLine(
  sim: SimContext,
  tree: Set<string>,
  items: Item[],
  current: string,
): CommandLine {
  let path = current;
  let i = 0;
  let verb: { text: string; pos: Pos } | undefined;
  const first = items[0];
  if (first?.kind === 'word' && first.text.startsWith('/')) {
    path = '';
    const parts = first.text.split('/').filter(Boolean);
    if (parts.length > 1 && !sim.state.caps.scriptSlashPaths)
      throw new ScriptError(`bad command name ${first.text.slice(1)}`, first.pos, true);
    for (const [n, part] of parts.entries()) {
      const next = `${path}/${part}`;
      if (tree.has(next) && !isAction(path)) {
        path = next;
        continue;
      }
      // only the last part of a slash path may be the verb
      if (n !== parts.length - 1) throw new ScriptError(`bad command name ${part}`, first.pos, true);
      verb = { text: part, pos: first.pos };
    }
    i = 1;
  }
  while (!verb && !isAction(path)) {
    const item = items[i];
    if (item?.kind !== 'word') break;
    const next = `${path}/${item.text}`;
    if (!tree.has(next)) break;
    path = next;
    i++;
  }
  if (isAction(path)) {
    const pos = items[Math.max(0, i - 1)]?.pos ?? { line: 0, column: 0 };
    return { kind: 'command', menu: path, verb: undefined, verbPos: pos, args: items.slice(i) };
  }
  if (!verb) {
    const item = items[i];
    if (item === undefined) return { kind: 'menu', path };
    if (item.kind !== 'word') throw new ScriptError('expected command name', item.pos, true);
    verb = { text: item.text, pos: item.pos };
    i++;
  }
  return { kind: 'command', menu: path, verb: verb.text, verbPos: verb.pos, args: items.slice(i) };
}

/** True when `verb` exists on `menu` (or the menu is an action). */
export function commandExists(sim: SimContext, menu: string, verb: string | undefined): boolean {
  if (verb === undefined) return isAction(menu);
  if (verb === 'find') return sim.state.menu(menu) !== undefined;
  try {
    resolveCommand(sim.state, `${menu}/${verb}`);
    return true;
  } catch {
    return MENU_VERBS[menu]?.[verb] !== undefined;
  }
}

/** Runs one command through the API handler; traps become ScriptErrors at `pos`. */
export async function invokeCommand(
  sim: SimContext,
  req: CommandRequest,
  pos: Pos,
): Promise<{ result: CommandResult; rows: Array<Record<string, string>> }> {
  const failure = sim.faults.failureFor(req.path);
  if (failure) throw new ScriptError(failure.message, pos);
  const rows: Array<Record<string, string>> = [];
  const ctx: CommandContext = {
    req,
    sim,
    signal: new AbortController().signal,
    re: (props) => {
      const row: Record<string, string> = {};
      for (const [k, v] of Object.entries(props)) row[k] = typeof v === 'string' ? v : v.toString('latin1');
      rows.push(row);
    },
    empty: () => undefined,
  };
  try {
    const handler = resolveCommand(sim.state, req.path);
    const result = await handler(ctx);
    return { result, rows };
  } catch (err) {
    if (err instanceof ScriptError) throw err;
    if (err instanceof RosTrap) throw new ScriptError(err.message, pos);
    throw new ScriptError(String((err as Error).message ?? err), pos);
  }
}
