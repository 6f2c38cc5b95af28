// WAL checkpoints off the event loop. SQLite runs its automatic checkpoint inside the COMMIT that
// takes the WAL past 1,000 pages. A 1,000-ticket batch dirties about 1,000 pages of the
// random-code index alone, so every batch paid, before its COMMIT returned, for copying its pages
// back into the database file and for two fsyncs (WAL, then database): a COMMIT of 45–55 ms in a
// batch of ~60 ms on 1,000,000 tickets, with the event loop (and so RADIUS) blocked meanwhile.
//
// Here a worker thread holds a second connection to the same file and runs a PASSIVE checkpoint
// every CHECKPOINT_INTERVAL_MS: WAL mode lets it copy committed pages while the main connection
// reads and writes, and a PASSIVE checkpoint never takes the write lock nor waits. Its connection
// syncs as the main one does (`synchronous = NORMAL`: the WAL is fsynced before the copy and the
// database file after it), so what a power cut can lose is still only what was committed since
// the last checkpoint, now at most about one interval old instead of up to 1,000 pages of commits.
//
// The WAL starts again from its beginning only when a write begins after everything in it was
// copied. Writes back to back with no pause never give the worker that moment, so the main
// connection keeps SQLite's automatic checkpoint at BACKSTOP_PAGES (64 MiB of WAL): the COMMIT
// that reaches it copies what the worker has not copied yet, and the next write starts the WAL
// over. It returns at once when the worker is checkpointing. (A RESTART checkpoint from the worker
// would bound the WAL too, but it holds writers off while it waits for readers: the main thread
// then sleeps in its busy handler, seconds on a loaded machine.) Should the worker fail, the main
// connection goes back to SQLite's default of a checkpoint every 1,000 pages.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

/** How often the worker checkpoints what was committed since its last run. */
export const CHECKPOINT_INTERVAL_MS = 200;
/** `wal_autocheckpoint` of the main connection: 64 MiB of WAL, only reached by writes without a pause. */
export const BACKSTOP_PAGES = 16_384;
/** `journal_size_limit`: a WAL file that grew past this is cut back when it starts over. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** SQLite's default `wal_autocheckpoint`, restored on the main connection if the worker fails. */
export const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

// Plain CommonJS evaluated in the worker: no loader or build step is involved, so the same code
// runs under tsx, from dist/ and from a bundle. The driver is the one the main thread resolves.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const describe = (err) => String((err && err.message) || err);
let db = null;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
} catch (err) {
  // Said here: an error thrown out of the worker reaches the main thread without its message.
  parentPort.postMessage({ error: describe(err) });
  db = null;
}
if (db !== null) {
  const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
  const tick = () => {
    try {
      checkpoint.get();
    } catch (err) {
      clearInterval(timer);
      parentPort.postMessage({ error: describe(err) });
    }
  };
  const timer = setInterval(tick, workerData.intervalMs);
  parentPort.on('message', (message) => {
    // A second stop finds the connection already closed: nothing left to do.
    if (message !== 'stop' || !db.open) return;
    clearInterval(timer);
    try {
      checkpoint.get();
    } finally {
      db.close();
      parentPort.close();
    }
  });
}
`;

export interface Checkpointer {
  /** Runs a last checkpoint, closes the worker's connection and waits for the worker to end. */
  stop(): Promise<void>;
}

/**
 * Starts the checkpoint worker of a WAL-mode database file the caller has open. `onFailure` is
 * called once if the worker stops checkpointing (it cannot open the file, a checkpoint fails).
 */
export function startCheckpointer(path: string, onFailure: (message: string) => void): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      path: resolve(path),
      intervalMs: CHECKPOINT_INTERVAL_MS,
    },
  });
  let stopping = false;
  let failed = false;
  const fail = (message: string) => {
    // Once stopping, the database is closing: there is nothing to fall back to.
    if (failed || stopping) return;
    failed = true;
    onFailure(message);
  };
  // The worker alone never keeps the process alive; stop() holds it until it has closed.
  worker.unref();
  worker.on('message', (m: { error?: string }) => {
    if (m.error) fail(m.error);
  });
  worker.on('error', (err: unknown) => fail(String((err as Error | null)?.message ?? err)));
  const exited = new Promise<void>((done) =>
    worker.once('exit', (code) => {
      if (!stopping) fail(`the worker ended (exit code ${code})`);
      done();
    }),
  );
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
