// What the LAN devices of the equipment tests serve, and how a test reads a TCP service: shared
// by the relay's end-to-end tests so each device answers the same way.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';

export const MIB = 1024 * 1024;
/** 1 MiB of a pattern that does not compress to nothing. */
const SLICE = Buffer.from(Array.from({ length: MIB }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));

/** The `i`-th MiB of `/big`: the pattern, starting with its number (so order shows). */
export function numbered(i: number): Buffer {
  const slice = Buffer.from(SLICE);
  slice.writeUInt32BE(i, 0);
  return slice;
}

/** The SHA-256 of `/big?mib=<n>`. */
export function bigDigest(mib: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i < mib; i++) hash.update(numbered(i));
  return hash.digest('hex');
}

/**
 * Serves `/big` (`?mib=<n>` MiB, `defaultMib` without it, each numbered, with backpressure) and a
 * POST to `/digest` (its body's length and SHA-256). False for any other request.
 */
export function serveBulk(req: IncomingMessage, res: ServerResponse, defaultMib: number): boolean {
  if (req.url?.startsWith('/big')) {
    const mib = Number(new URL(req.url, 'http://device').searchParams.get('mib') ?? defaultMib);
    res.setHeader('content-length', String(mib * MIB));
    let sent = 0;
    const pump = () => {
      while (sent < mib) {
        if (!res.write(numbered(sent++))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
    return true;
  }
  if (req.method === 'POST' && req.url === '/digest') {
    const hash = createHash('sha256');
    let length = 0;
    req.on('data', (c: Buffer) => {
      hash.update(c);
      length += c.length;
    });
    req.on('end', () => res.end(`${length} ${hash.digest('hex')}`));
    return true;
  }
  return false;
}

/** `host:port` or a URL with a port, as a place to connect to. */
export function splitAddress(address: string): { host: string; port: number } {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return { host: url.hostname, port: Number(url.port) };
}

/**
 * Everything a TCP service says first (up to its first line) within `ms` of a connection from
 * `localAddress`: `SILENT` when it says nothing, `CLOSED` when it closes first, or the error's code.
 */
export function firstBytes(address: string, localAddress = '127.0.0.1', ms = 1500): Promise<string> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    const socket = connect({ host, port, localAddress });
    let got = '';
    const done = (v: string) => {
      socket.destroy();
      resolve(v);
    };
    socket.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      if (got.includes('\n')) done(got);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    socket.on('close', () => done(got || 'CLOSED'));
    setTimeout(() => done(got || 'SILENT'), ms);
  });
}
