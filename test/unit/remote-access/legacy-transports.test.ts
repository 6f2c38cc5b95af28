import { expect } from 'chai';
import {
  legacyTransports,
  parseLegacyHosts,
} from '../../../controller/modules/remote-access/legacy-transports.js';

const KEY = 'A'.repeat(42) + 'E=';

describe('legacy rescue transports', () => {
  const good: [string | undefined, string[]][] = [
    [undefined, []],
    ['', []],
    [`wg.example.net:51820/${KEY}`, ['LEGACY_WG_HOST wg.example.net:51820']],
    [
      `a.example:1/${KEY}, 10.0.0.1:65535/${KEY}`,
      ['LEGACY_WG_HOST a.example:1', 'LEGACY_WG_SECONDARY 10.0.0.1:65535'],
    ],
  ];
  for (const [text, expected] of good)
    it(`reads ${JSON.stringify(text)}`, () => {
      expect(parseLegacyHosts(text).map((h) => `${h.kind} ${h.host}:${h.port}`)).to.deep.equal(expected);
    });

  const bad = [
    `wg.example.net/${KEY}`,
    `wg.example.net:0/${KEY}`,
    `wg.example.net:70000/${KEY}`,
    'wg.example.net:51820/short=',
    `a:1/${KEY},b:2/${KEY},c:3/${KEY}`,
  ];
  for (const text of bad)
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(() => parseLegacyHosts(text)).to.throw();
    });

  it('lists them only while the migration runs', () => {
    const hosts = parseLegacyHosts(`wg.example.net:51820/${KEY}`);
    expect(legacyTransports(hosts, false)).to.deep.equal([]);
    expect(legacyTransports(hosts, true)).to.deep.equal([
      {
        kind: 'LEGACY_WG_HOST',
        protocol: 'WIREGUARD',
        legacy: true,
        endpoint: { host: 'wg.example.net', port: 51820 },
        server_public_key: KEY,
      },
    ]);
    expect(legacyTransports([], true)).to.deep.equal([]);
  });
});
