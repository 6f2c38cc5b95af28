// Content of a simulated .backup: binary, derived from the router state so
// two backups of different states differ, and big enough (a few KB+) to
// exercise chunked reads and FTP. Not RouterOS's real format; the header magic
// mimics an unencrypted backup so tools that sniff it see a "backup".
import { deflateSync } from 'node:zlib';
import { Prng } from './prng.js';
import type { RouterState } from './router-state.js';

/** Magic of an unencrypted RouterOS backup (88 AC A1 B1). */
export const BACKUP_MAGIC = Buffer.from([0x88, 0xac, 0xa1, 0xb1]);
const MIN_SIZE = 8 * 1024;

export function buildBackup(state: RouterState, encrypt: boolean): Buffer {
  const sections: Buffer[] = [];
  for (const path of state.menuPaths()) {
    if (path === '/file' || path === '/system/resource') continue;
    const table = state.table(path);
    const body = deflateSync(Buffer.from(JSON.stringify(table.list().map((r) => [r.id, r.props])), 'utf8'));
    const name = Buffer.from(path.slice(1).replaceAll('/', '.'), 'latin1');
    const head = Buffer.alloc(8);
    head.writeUInt32LE(name.length, 0);
    head.writeUInt32LE(body.length, 4);
    sections.push(head, name, body);
  }
  let payload = Buffer.concat(sections);
  // RouterOS backups are never tiny: pad with noise derived from the payload
  if (payload.length < MIN_SIZE) {
    const rng = new Prng(`${state.identity.serial}:${payload.length}`);
    payload = Buffer.concat([payload, rng.bytes(MIN_SIZE - payload.length)]);
  }
  if (encrypt) {
    const rng = new Prng(`${state.identity.serial}:key`);
    const key = rng.bytes(64);
    payload = Buffer.from(payload.map((b, i) => b ^ (key[i % key.length] ?? 0)));
  }
  const header = Buffer.alloc(8);
  BACKUP_MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.length + 8, 4);
  return Buffer.concat([header, payload]);
}
