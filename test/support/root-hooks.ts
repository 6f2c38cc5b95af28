// Mocha root hooks (loaded by .mocharc.cjs for every run, whole suite or named files).
import { dropRunDatabase } from './postgres-run.js';

export const mochaHooks = {
  // The run's PostgreSQL database goes with the run.
  async afterAll(): Promise<void> {
    await dropRunDatabase();
  },
};
