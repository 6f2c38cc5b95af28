import { expect } from 'chai';
import {
  parseRouterOsBoolean,
  parseRouterOsDuration,
  parseRouterOsInteger,
} from '../../../agent/routeros/ros-values.js';
import { toHotspotProfile, toHotspotUser } from '../../../agent/routeros/export-hotspot-users.js';

describe('parseRouterOsDuration', () => {
  const cases: [string, number | undefined][] = [
    ['1w2d3h4m5s', 604800 + 2 * 86400 + 3 * 3600 + 4 * 60 + 5],
    ['3d4h17m', 3 * 86400 + 4 * 3600 + 17 * 60],
    ['0s', 0],
    ['45s', 45],
    ['1h', 3600],
    ['30d', 30 * 86400],
    ['500ms', 0.5],
    ['12ms345us', 0.012345],
    ['00:05:00', 300],
    ['1d02:03:04', 86400 + 2 * 3600 + 3 * 60 + 4],
    ['1w1d00:00:01', 604800 + 86400 + 1],
    ['', undefined],
    ['none', undefined],
    ['5m1h', undefined],
    ['1h1h', undefined],
    ['10', undefined],
    ['1x', undefined],
  ];
  for (const [text, seconds] of cases) {
    it(`"${text}" → ${seconds}`, () => {
      const got = parseRouterOsDuration(text);
      if (seconds === undefined) expect(got).to.equal(undefined);
      else expect(got).to.be.closeTo(seconds, 1e-9);
    });
  }
});

describe('parseRouterOsBoolean / parseRouterOsInteger', () => {
  const bools: [string | undefined, boolean | undefined][] = [
    ['true', true],
    ['yes', true],
    ['false', false],
    ['no', false],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [text, value] of bools)
    it(`bool "${text}"`, () => expect(parseRouterOsBoolean(text)).to.equal(value));
  const ints: [string | undefined, number | undefined][] = [
    ['0', 0],
    ['3907584', 3907584],
    ['12.5KiB', undefined],
    ['-1', undefined],
    ['', undefined],
    ['99999999999999999999', undefined],
  ];
  for (const [text, value] of ints)
    it(`int "${text}"`, () => expect(parseRouterOsInteger(text)).to.equal(value));
});

describe('hotspot export records', () => {
  const users: [Record<string, string>, ReturnType<typeof toHotspotUser>][] = [
    [
      {
        name: 'ab12',
        password: 'ab12',
        profile: '1h-500F',
        'limit-uptime': '1h',
        'limit-bytes-total': '0',
        disabled: 'false',
      },
      { name: 'ab12', password: 'ab12', profile: '1h-500F', limit_uptime: 3600, disabled: false },
    ],
    [
      { name: 'x', comment: 'vendu par awa', 'limit-bytes-total': '1073741824', disabled: 'true' },
      {
        name: 'x',
        profile: 'default',
        comment: 'vendu par awa',
        limit_bytes_total: 1073741824,
        disabled: true,
      },
    ],
    [
      { name: 'y', password: '', 'limit-uptime': '0s' },
      { name: 'y', profile: 'default', disabled: false },
    ],
  ];
  for (const [record, expected] of users) {
    it(`user ${record.name}`, () => expect(toHotspotUser(record)).to.deep.equal(expected));
  }

  it('profiles', () => {
    expect(
      toHotspotProfile({ name: '1d', 'rate-limit': '2M/4M', 'shared-users': '1', 'session-timeout': '1d' }),
    ).to.deep.equal({
      name: '1d',
      rate_limit: '2M/4M',
      shared_users: 1,
      session_timeout: 86400,
    });
    expect(
      toHotspotProfile({ name: 'default', 'shared-users': 'unlimited', 'session-timeout': '0s' }),
    ).to.deep.equal({
      name: 'default',
    });
  });
});
