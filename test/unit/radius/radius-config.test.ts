import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../controller/config.js';

describe('RADIUS configuration', () => {
  it('keeps direct UDP RADIUS off by default, on loopback and the standard ports when enabled', () => {
    const c = loadConfig({});
    expect(c).to.include({
      radiusEnabled: false,
      radiusHost: '127.0.0.1',
      radiusAuthPort: 1812,
      radiusAcctPort: 1813,
      radiusInterimSeconds: 300,
    });
  });

  it('reads the TICKETNET_RADIUS_* variables', () => {
    const c = loadConfig({
      TICKETNET_RADIUS_ENABLED: 'true',
      TICKETNET_RADIUS_HOST: '10.8.0.1',
      TICKETNET_RADIUS_AUTH_PORT: '11812',
      TICKETNET_RADIUS_ACCT_PORT: '0',
      TICKETNET_RADIUS_INTERIM_SECONDS: '600',
    });
    expect(c).to.include({
      radiusEnabled: true,
      radiusHost: '10.8.0.1',
      radiusAuthPort: 11812,
      radiusAcctPort: 0,
      radiusInterimSeconds: 600,
    });
  });

  const refused: [Record<string, string>, RegExp][] = [
    [{ TICKETNET_RADIUS_AUTH_PORT: '70000' }, /TICKETNET_RADIUS_AUTH_PORT/],
    [{ TICKETNET_RADIUS_ACCT_PORT: 'acct' }, /TICKETNET_RADIUS_ACCT_PORT/],
    [{ TICKETNET_RADIUS_ENABLED: 'perhaps' }, /TICKETNET_RADIUS_ENABLED/],
    // RFC 2869 §5.16: an interim interval under 60 s loads NAS and server for nothing.
    [{ TICKETNET_RADIUS_INTERIM_SECONDS: '10' }, /TICKETNET_RADIUS_INTERIM_SECONDS/],
  ];
  for (const [env, message] of refused) {
    it(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(ConfigError, message);
    });
  }
});
