import { expect } from 'chai';
import { capabilitiesFor, parseRouterOsVersion } from '../../../agent/routeros/capabilities.js';

describe('parseRouterOsVersion', () => {
  const cases: [string, ReturnType<typeof parseRouterOsVersion>][] = [
    ['7.19 (stable)', { major: 7, minor: 19, patch: 0, channel: 'stable', text: '7.19' }],
    ['6.49.10 (long-term)', { major: 6, minor: 49, patch: 10, channel: 'long-term', text: '6.49.10' }],
    ['7.16.2', { major: 7, minor: 16, patch: 2, text: '7.16.2' }],
    [
      '7.20beta4 (development)',
      { major: 7, minor: 20, patch: 0, prerelease: 'beta4', channel: 'development', text: '7.20beta4' },
    ],
    [
      '7.19rc1 (testing)',
      { major: 7, minor: 19, patch: 0, prerelease: 'rc1', channel: 'testing', text: '7.19rc1' },
    ],
    ['  6.43  ', { major: 6, minor: 43, patch: 0, text: '6.43' }],
    ['', undefined],
    ['stable', undefined],
    ['7', undefined],
    ['7.19 stable', undefined],
  ];
  for (const [input, expected] of cases) {
    it(`"${input}"`, () => expect(parseRouterOsVersion(input)).to.deep.equal(expected));
  }
});

describe('capabilitiesFor', () => {
  const table: {
    version: string;
    emptyReply: boolean;
    wireguard: boolean;
    fileRead: boolean;
    challengeLogin: boolean;
    fileTime: string;
  }[] = [
    {
      version: '6.42.12',
      emptyReply: false,
      wireguard: false,
      fileRead: false,
      challengeLogin: true,
      fileTime: 'creation-time',
    },
    {
      version: '6.49.10 (long-term)',
      emptyReply: false,
      wireguard: false,
      fileRead: false,
      challengeLogin: false,
      fileTime: 'creation-time',
    },
    {
      version: '7.12.1',
      emptyReply: false,
      wireguard: true,
      fileRead: false,
      challengeLogin: false,
      fileTime: 'creation-time',
    },
    {
      version: '7.13',
      emptyReply: false,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
    {
      version: '7.16 (stable)',
      emptyReply: false,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
    {
      version: '7.17.2',
      emptyReply: false,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
    {
      version: '7.18beta2 (development)',
      emptyReply: true,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
    {
      version: '7.19 (stable)',
      emptyReply: true,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
    {
      version: '8.0',
      emptyReply: true,
      wireguard: true,
      fileRead: true,
      challengeLogin: false,
      fileTime: 'last-modified',
    },
  ];
  for (const row of table) {
    it(row.version, () => {
      const caps = capabilitiesFor(row.version);
      expect({
        version: row.version,
        emptyReply: caps.emptyReply,
        wireguard: caps.wireguard,
        fileRead: caps.fileRead,
        challengeLogin: caps.challengeLogin,
        fileTime: caps.properties.fileTime,
      }).to.deep.equal(row);
      expect(caps.fileTransfer).to.equal(caps.fileRead ? 'file-read' : 'ftp');
      expect(caps.menus.wireguard === undefined).to.equal(!caps.wireguard);
    });
  }

  it('accepts a parsed version', () => {
    const v = parseRouterOsVersion('7.19 (stable)');
    expect(capabilitiesFor(v!).version).to.equal(v);
  });

  it('refuses text that is not a version', () => {
    expect(() => capabilitiesFor('banana')).to.throw(RangeError);
  });
});
