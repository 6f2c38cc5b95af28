// Tests run from TypeScript sources through tsx; CI forbids `.only`.
// Files named on the command line replace the default spec instead of adding to it.
const named = process.argv.slice(2).some((a) => a.endsWith('.ts') && !a.startsWith('-'));
// The whole suite runs its files in parallel workers (most of its time is spent waiting on sockets
// and timers); TICKETNET_TEST_JOBS=1 runs it in one process.
const jobs = Number(process.env.TICKETNET_TEST_JOBS) || 2;
module.exports = {
  'node-option': ['import=tsx'],
  // Global fixtures: the run's PostgreSQL databases are dropped when the run ends.
  require: ['test/support/root-hooks.ts'],
  ...(named ? {} : { spec: ['test/**/*.test.ts'], parallel: jobs > 1, jobs }),
  timeout: 20000,
  exit: true,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'spec',
};
