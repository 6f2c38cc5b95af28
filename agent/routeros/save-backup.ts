// backup.save: have the router write a binary backup, wait until the file is
// complete on flash, bring its bytes back exactly, and check them against
// the size the router reports.
import { createHash } from 'node:crypto';
import type { RouterCapabilities } from './capabilities.js';
import { readFileViaApi, readFileViaFtp } from './fetch-router-file.js';
import { readCapabilities } from './read-facts.js';
import type { RouterConnection } from './router-connection.js';
import { RouterError } from './router-error.js';
import { parseRouterOsInteger } from './ros-values.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

export interface BackupFile {
  file_name: string;
  size: number;
  /** Lowercase hex SHA-256 of the content. */
  sha256: string;
  content_base64: string;
}

export interface SaveBackupOptions {
  /** File stem on the router; RouterOS adds ".backup". */
  name: string;
  /** Router FTP port for versions without /file/read (default 21). */
  ftpPort?: number;
  /** Deadline of `/system/backup/save` itself (default 120 s: slow flash, big configs). */
  saveTimeoutMs?: number;
  /** How long the file may take to appear with a stable size (default 15 s). */
  settleTimeoutMs?: number;
  /** Interval between /file polls (default 500 ms). */
  pollIntervalMs?: number;
  /** Force a transfer method; by default the router's capabilities choose. */
  transfer?: 'file-read' | 'ftp';
  signal?: AbortSignal;
}

/** Same rule as the protocol's `backup.save` name. */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface FileEntry {
  name: string;
  /** Bytes, when the router printed a plain integer. */
  size: number | undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The file under its name, or under flash/ on boards whose persistent storage is that folder. */
async function findFile(
  conn: RouterConnection,
  fileName: string,
  signal?: AbortSignal,
): Promise<FileEntry | undefined> {
  for (const name of [fileName, `flash/${fileName}`]) {
    const [rec] = await conn.print('/file', {
      where: { name },
      proplist: ['name', 'size', 'type'],
      ...(signal ? { signal } : {}),
    });
    if (rec) return { name: rec.name ?? name, size: parseRouterOsInteger(rec.size) };
  }
  return undefined;
}

/** Polls /file until the backup exists and two reads in a row give the same size. */
async function waitForStableFile(
  conn: RouterConnection,
  fileName: string,
  options: { settleTimeoutMs: number; pollIntervalMs: number; signal?: AbortSignal },
): Promise<FileEntry> {
  const deadline = monotonicMs() + options.settleTimeoutMs;
  let previous: FileEntry | undefined;
  for (;;) {
    const entry = await findFile(conn, fileName, options.signal);
    if (entry && previous && entry.size === previous.size) return entry;
    previous = entry;
    if (monotonicMs() >= deadline) break;
    await sleep(options.pollIntervalMs, options.signal);
  }
  if (!previous) {
    // proposed code BACKUP_LOST; ROUTER_TRAP until the protocol has it
    throw new RouterError(
      'ROUTER_TRAP',
      `backup lost: /system/backup/save reported success but ${fileName} never appeared in /file`,
      { retryable: true },
    );
  }
  throw new RouterError(
    'ROUTER_TIMEOUT',
    `backup ${fileName} was still growing after ${options.settleTimeoutMs} ms`,
  );
}

async function fetchBytes(
  conn: RouterConnection,
  file: FileEntry,
  caps: RouterCapabilities | undefined,
  options: SaveBackupOptions,
): Promise<Buffer> {
  const ftp = (): Promise<Buffer> =>
    readFileViaFtp(conn, file.name, options.ftpPort === undefined ? {} : { ftpPort: options.ftpPort });
  const method = options.transfer ?? caps?.fileTransfer ?? 'file-read';
  if (method === 'ftp') return ftp();
  try {
    return await readFileViaApi(conn, file.name, {
      ...(file.size === undefined ? {} : { size: file.size }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    // an unrecognised version may still lack /file/read: FTP is the way left
    if (!options.transfer && !caps && err instanceof RouterError && err.code === 'ROUTER_TRAP') return ftp();
    throw err;
  }
}

/** Saves a binary backup on the router and returns its bytes. */
export async function saveBackup(conn: RouterConnection, options: SaveBackupOptions): Promise<BackupFile> {
  if (!NAME_RE.test(options.name)) throw new RangeError(`invalid backup name "${options.name}"`);
  const signal = options.signal;
  const call = signal ? { signal } : {};
  const caps = await readCapabilities(conn, call);
  const fileName = options.name.endsWith('.backup') ? options.name : `${options.name}.backup`;

  await conn.write(
    '/system/backup/save',
    { name: options.name },
    { ...call, timeoutMs: options.saveTimeoutMs ?? 120_000 },
  );
  const file = await waitForStableFile(conn, fileName, {
    settleTimeoutMs: options.settleTimeoutMs ?? 15_000,
    pollIntervalMs: options.pollIntervalMs ?? 500,
    ...call,
  });
  if (file.size === 0) {
    const [resource] = await conn.print('/system/resource', { proplist: ['free-hdd-space'], ...call });
    const free = parseRouterOsInteger(resource?.['free-hdd-space']);
    if (free === 0)
      throw new RouterError('NO_SPACE', `backup ${file.name} is empty: the router's flash is full`);
    throw new RouterError('BACKUP_EMPTY', `backup ${file.name} is empty (0 bytes) on the router`, {
      retryable: true,
    });
  }

  const bytes = await fetchBytes(conn, file, caps, options);
  if (file.size !== undefined && bytes.length !== file.size) {
    throw new RouterError(
      'ROUTER_TRAP',
      `backup ${file.name}: got ${bytes.length} bytes, the router lists ${file.size}`,
      { retryable: true },
    );
  }
  return {
    file_name: file.name,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    content_base64: bytes.toString('base64'),
  };
}
