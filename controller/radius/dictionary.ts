// Loads the MikroTik vendor dictionary into the `radius` codec (its dictionaries are global to
// the process), once. The file is looked for beside this module, then in the source tree, since
// the dist/ build copies only JavaScript.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import radius from 'radius';

export const MIKROTIK_VENDOR_ID = 14988;

const CANDIDATES = [
  new URL('./dictionary.mikrotik', import.meta.url),
  new URL('../../../controller/radius/dictionary.mikrotik', import.meta.url),
];

let loaded = false;

export function ensureDictionaries(): void {
  if (loaded) return;
  const file = CANDIDATES.map((u) => fileURLToPath(u)).find((p) => existsSync(p));
  if (!file) throw new Error('controller/radius/dictionary.mikrotik not found');
  radius.add_dictionary(file);
  // The codec loads its dictionaries on first use; forget them in case that already happened.
  radius.unload_dictionaries();
  loaded = true;
}
