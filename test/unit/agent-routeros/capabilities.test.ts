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
  const table: { version: string; fileTransfer: string; licenseId: string[] }[] = [
    { version: '6.42.12', fileTransfer: 'ftp', licenseId: ['software-id'] },
    { version: '6.49.10 (long-term)', fileTransfer: 'ftp', licenseId: ['software-id'] },
    { version: '7.12.1', fileTransfer: 'ftp', licenseId: ['system-id', 'software-id'] },
    { version: '7.13', fileTransfer: 'file-read', licenseId: ['system-id', 'software-id'] },
    { version: '7.16 (stable)', fileTransfer: 'file-read', licenseId: ['system-id', 'software-id'] },
    {
      version: '7.18beta2 (development)',
      fileTransfer: 'file-read',
      licenseId: ['system-id', 'software-id'],
    },
    { version: '7.19 (stable)', fileTransfer: 'file-read', licenseId: ['system-id', 'software-id'] },
    { version: '8.0', fileTransfer: 'file-read', licenseId: ['system-id', 'software-id'] },
  ];
  for (const row of table) {
    it(row.version, () => {
      const caps = capabilitiesFor(row.version);
      expect({
        version: row.version,
        fileTransfer: caps.fileTransfer,
        licenseId: [...caps.properties.licenseId],
      }).to.deep.equal(row);
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
