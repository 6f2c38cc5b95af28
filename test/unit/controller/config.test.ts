import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../controller/config.js';

describe('controller config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(8080);
    expect(c.host).to.equal('127.0.0.1');
    expect(c.db).to.equal('sqlite:./data/ticketnet.db');
    expect(c.dataDir).to.equal('./data');
    expect(c.apiQuota).to.deep.equal({ limit: 100, windowMs: 15 * 60_000 });
    expect(c.clock).to.equal('system');
    expect(c.jobRunRoute).to.equal(false);
  });

  const accepted: [Record<string, string>, string, unknown][] = [
    [{ TICKETNET_API_QUOTA: 'off' }, 'apiQuota', null],
    [{ TICKETNET_API_QUOTA: '5/1m' }, 'apiQuota', { limit: 5, windowMs: 60_000 }],
    [{ TICKETNET_API_QUOTA: '10/30s' }, 'apiQuota', { limit: 10, windowMs: 30_000 }],
    [{ TICKETNET_API_QUOTA: '1000/1h' }, 'apiQuota', { limit: 1000, windowMs: 3_600_000 }],
    [{ PORT: '9000' }, 'port', 9000],
    [{ TICKETNET_DB: 'postgres://u@127.0.0.1/test' }, 'db', 'postgres://u@127.0.0.1/test'],
    [{ TICKETNET_DB: 'sqlite:/tmp/x.db' }, 'db', 'sqlite:/tmp/x.db'],
    [{ TICKETNET_TRUST_PROXY: 'yes' }, 'trustProxy', true],
    [{ TICKETNET_JOB_RUN_ROUTE: '0' }, 'jobRunRoute', false],
  ];
  for (const [env, key, expected] of accepted) {
    it(`accepts ${JSON.stringify(env)}`, () => {
      expect(loadConfig(env)[key as 'port']).to.deep.equal(expected);
    });
  }

  const refused: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ TICKETNET_DB: 'mysql://x' }, /TICKETNET_DB/],
    [{ TICKETNET_API_QUOTA: '100 per 15m' }, /TICKETNET_API_QUOTA/],
    [{ TICKETNET_CLOCK: 'fast' }, /TICKETNET_CLOCK/],
    [{ TICKETNET_JWT_SECRET: 'short' }, /TICKETNET_JWT_SECRET/],
    [{ TICKETNET_TRUST_PROXY: 'maybe' }, /TICKETNET_TRUST_PROXY/],
  ];
  for (const [env, message] of refused) {
    it(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }

  it('lets flags override the environment', () => {
    expect(loadConfig({ PORT: '9000' }, { port: '9100' }).port).to.equal(9100);
  });
});
