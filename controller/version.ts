import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// package.json is one level above the source tree and two above dist/; take the first found.
const candidates = ['../package.json', '../../package.json'].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)),
);
const path = candidates.find(
  (p) => existsSync(p) && JSON.parse(readFileSync(p, 'utf8')).name === 'ticketnet',
);

export const VERSION: string = path
  ? (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version
  : '0.0.0';
