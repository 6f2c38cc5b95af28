// Mocha root hooks (loaded by .mocharc.cjs for every run, whole suite or named files).
import { dropRunDatabase } from './postgres-run.js';

// DROP DATABASE waits for a checkpoint, which takes long on a server busy with other runs.
const DROP_MS = 180_000;

export const mochaHooks = {
  // The run's PostgreSQL database goes with the run.
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(DROP_MS);
    await dropRunDatabase();
  },
};
