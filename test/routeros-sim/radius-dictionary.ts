// The `radius` codec with MikroTik's vendor attributes loaded. The codec keeps
// its dictionaries in process-wide state and loads them once, so a dictionary
// added after that first load would be ignored: ensureMikrotikDictionary()
// adds ours and reloads everything when needed (other users' dictionaries
// stay registered, a reload keeps every location).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import radius from 'radius';

export const MIKROTIK_VENDOR_ID = 14988;

interface CodecInternals {
  load_dictionaries(): void;
  attr_name_to_id(name: string, vendorId?: number): string | undefined;
}

/** The codec, with the two internals the typings leave out. */
export const radiusCodec = radius as typeof radius & CodecInternals;

const CANDIDATES = [
  new URL('./dictionary.mikrotik', import.meta.url),
  // the build copies only transpiled .ts files: from dist/test/routeros-sim/ read the sources' copy
  new URL('../../../test/routeros-sim/dictionary.mikrotik', import.meta.url),
];

let ready = false;

export function mikrotikDictionaryPath(): string {
  for (const url of CANDIDATES) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error('dictionary.mikrotik not found next to the RouterOS simulator');
}

export function ensureMikrotikDictionary(): void {
  if (ready) return;
  radiusCodec.add_dictionary(mikrotikDictionaryPath());
  radiusCodec.load_dictionaries();
  if (radiusCodec.attr_name_to_id('Mikrotik-Rate-Limit', MIKROTIK_VENDOR_ID) === undefined) {
    radiusCodec.unload_dictionaries();
    radiusCodec.load_dictionaries();
  }
  ready = true;
}
