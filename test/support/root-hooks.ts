// Mocha root hooks and global fixtures (loaded by .mocharc.cjs for every run, whole suite or named
// files). The global fixtures run once in mocha's main process, around every parallel worker.
import { dropRunDatabases, runTag } from './postgres-run.js';

const pgUrl = process.env.TICKETNET_TEST_PG;

// Set before the workers are forked, so they inherit it and name their databases with it.
export function mochaGlobalSetup(): void {
  runTag();
}

// The run's PostgreSQL databases (one per worker) go with the run.
export async function mochaGlobalTeardown(): Promise<void> {
  if (pgUrl) await dropRunDatabases(pgUrl);
}
