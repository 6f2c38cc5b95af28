// Tests run from TypeScript sources through tsx; CI forbids `.only`.
// Files named on the command line replace the default spec instead of adding to it.
const named = process.argv.slice(2).some((a) => a.endsWith('.ts') && !a.startsWith('-'));
module.exports = {
  'node-option': ['import=tsx'],
  // Root hooks: the run's PostgreSQL database is dropped when the run ends.
  require: ['test/support/root-hooks.ts'],
  ...(named ? {} : { spec: ['test/**/*.test.ts'] }),
  timeout: 20000,
  exit: true,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'spec',
};
