// Maps a command word to its handler: a full-path action (/ping), a menu's
// own verb (/file/read) or a generic verb (/ip/hotspot/user/print).
import { ACTIONS, MENU_VERBS } from './actions.js';
import { noSuchCommand, noSuchCommandPrefix } from './command-types.js';
import type { CommandHandler } from './command-types.js';
import { genericVerb } from './menu-commands.js';
import type { RouterState } from './router-state.js';

export function resolveCommand(state: RouterState, path: string): CommandHandler {
  const action = ACTIONS[path];
  if (action) return action;
  const slash = path.lastIndexOf('/');
  const menuPath = path.slice(0, slash);
  const verb = path.slice(slash + 1);
  const table = state.menu(menuPath);
  // also covers menus this version lacks (WireGuard on v6)
  if (!table) throw noSuchCommandPrefix();
  const own = MENU_VERBS[menuPath]?.[verb];
  if (own) return (ctx) => own(table, ctx);
  const generic = genericVerb(table, verb);
  if (!generic) throw noSuchCommand();
  return generic;
}
