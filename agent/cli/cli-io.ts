// What the CLI subcommands print to and return, so each one is a plain async function.
import { publicKeyFingerprint } from '../../protocol/index.js';
import type { RouterSettings } from '../config.js';
import { RouterConnection } from '../routeros/router-connection.js';

export interface CliIO {
  /** A line for the user (stdout). */
  out(line: string): void;
  /** A line about a failure (stderr). */
  err(line: string): void;
}

export const PROCESS_IO: CliIO = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

/**
 * Exit codes of every subcommand:
 * 0 done; 1 the operation failed (router, controller or disk); 2 bad usage or configuration;
 * 3 (`run`) the controller refused this agent for good: enrol it again.
 */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2, REFUSED: 3 } as const;

/** A router connection for one CLI command (the caller closes it). */
export function cliRouter(settings: RouterSettings): RouterConnection {
  return new RouterConnection(settings);
}

/** Key fingerprint for display, or a note when the key is malformed. */
export function fingerprint(publicKey: string): string {
  try {
    return publicKeyFingerprint(publicKey);
  } catch {
    return '(malformed key)';
  }
}

/** "CODE: message" of a RouterError or any error. */
export function describeError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
