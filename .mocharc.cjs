// Tests run from TypeScript sources through tsx; CI forbids `.only`.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['test/**/*.test.ts'],
  timeout: 20000,
  exit: true,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'spec',
};
