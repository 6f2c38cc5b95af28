// Secrets generated once into the data directory when the config does not give them. Written
// with O_EXCL so two controllers starting together on one data directory agree on one value.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export function loadOrCreateSecret(
  dataDir: string,
  name: string,
  make = () => randomBytes(48).toString('base64url'),
): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, name);
  try {
    writeFileSync(path, make(), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(path, 'utf8').trim();
}
