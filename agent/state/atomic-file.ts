// Durable file writes without native modules: write a temp file in the same directory, fsync it,
// rename it over the target, then fsync the directory so the rename itself survives a power cut.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Prefix of the temp files `writeFileAtomic` makes; directory listings skip names that start with it. */
export const TEMP_PREFIX = '.tmp-';

export interface AtomicWriteOptions {
  /** File mode of the new file (default 0o644); identity.json uses 0o600. */
  mode?: number;
}

/** Replaces `path` with `data` atomically: a reader sees the old content or the new one, never a mix. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const mode = options.mode ?? 0o644;
  const temp = join(dir, `${TEMP_PREFIX}${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'wx', mode);
  try {
    // The umask may have removed bits; set the mode the caller asked for, before any content lands.
    await handle.chmod(mode);
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/** Deletes `path` (absent is fine) and makes the deletion durable. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDirectory(dirname(path));
}

/** fsync of a directory, so creations, renames and deletions in it are on disk. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on a directory (EINVAL, EISDIR); the file itself was synced.
  } finally {
    await handle?.close();
  }
}

/** Reads a UTF-8 file, or undefined when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
