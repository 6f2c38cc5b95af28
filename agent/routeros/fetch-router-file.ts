// Brings a file from the router's flash back to the agent, byte for byte:
// over the API with /file/read (7.13+), or by FTP with the API credentials.
import { Writable } from 'node:stream';
import type { FTPError } from 'basic-ftp';
import { routerErrorFromSocketError } from './classify-fault.js';
import type { RouterCallOptions, RouterConnection } from './router-connection.js';
import { RouterError } from './router-error.js';

/** Largest chunk RouterOS accepts in `/file/read chunk-size`. */
export const FILE_READ_CHUNK_BYTES = 32 * 1024;

export interface ApiReadOptions extends RouterCallOptions {
  /** Known size from /file: reading stops there; otherwise at the first short chunk. */
  size?: number;
  chunkBytes?: number;
}

/**
 * Reads a file in `/file/read` chunks. Words stay bytes all the way (our
 * client never decodes `data` as text), so binary content survives.
 */
export async function readFileViaApi(
  conn: RouterConnection,
  name: string,
  options: ApiReadOptions = {},
): Promise<Buffer> {
  const chunkBytes = Math.min(options.chunkBytes ?? FILE_READ_CHUNK_BYTES, FILE_READ_CHUNK_BYTES);
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    if (options.size !== undefined && offset >= options.size) break;
    const reply = await conn.call(
      '/file/read',
      { file: name, offset, 'chunk-size': chunkBytes },
      {
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    // the data normally comes in one !re; accept it split or on !done too
    const pieces = [...reply.records.map((r) => r.get('data')), reply.done.get('data')].filter(
      (b): b is Buffer => b !== undefined,
    );
    const chunk = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    if (chunk.length > 0) parts.push(Buffer.from(chunk));
    offset += chunk.length;
    if (options.size === undefined ? chunk.length < chunkBytes : chunk.length === 0) break;
  }
  return Buffer.concat(parts, offset);
}

export interface FtpReadOptions {
  /** Router FTP port (default 21). */
  ftpPort?: number;
  /** Control and data socket inactivity timeout (default 30 s). */
  timeoutMs?: number;
}

/** Collects a download in memory (backups are a few hundred KB at most). */
class BufferSink extends Writable {
  readonly parts: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.parts.push(chunk);
    done();
  }
}

function ftpFailure(
  err: unknown,
  endpoint: string,
  name: string,
  FtpErrorClass: typeof FTPError,
): RouterError {
  if (err instanceof RouterError) return err;
  if (err instanceof FtpErrorClass) {
    if (err.code === 530)
      return new RouterError('ROUTER_AUTH_FAILED', `FTP ${endpoint}: login refused (${err.message})`);
    if (err.code === 550)
      return new RouterError('ROUTER_TRAP', `FTP ${endpoint}: ${name} not found (${err.message})`);
    return new RouterError('ROUTER_TRAP', `FTP ${endpoint}: ${err.message}`, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/timeout/i.test(message))
    return new RouterError('ROUTER_TIMEOUT', `FTP ${endpoint}: ${message}`, { cause: err });
  const failure = routerErrorFromSocketError(err, endpoint);
  return new RouterError(
    failure.code,
    `FTP ${failure.message.replace(/^router /, '')} (is the ftp service enabled?)`,
    {
      cause: err,
    },
  );
}

/** Downloads a file from the router's FTP service with the connection's credentials (RouterOS 6). */
export async function readFileViaFtp(
  conn: RouterConnection,
  name: string,
  options: FtpReadOptions = {},
): Promise<Buffer> {
  const port = options.ftpPort ?? 21;
  const endpoint = `${conn.host}:${port}`;
  // basic-ftp is loaded on the first FTP download only (RouterOS 6 backups): an idle agent does not
  // hold its code.
  const { Client: FtpClient, FTPError: FtpErrorClass } = await import('basic-ftp');
  const client = new FtpClient(options.timeoutMs ?? 30_000);
  const sink = new BufferSink();
  try {
    const { user, password } = conn.credentials;
    await client.access({ host: conn.host, port, user, password, secure: false });
    await client.downloadTo(sink, name);
    return Buffer.concat(sink.parts);
  } catch (err) {
    throw ftpFailure(err, endpoint, name, FtpErrorClass);
  } finally {
    client.close();
  }
}
