import { expect } from 'chai';
import {
  formatDataLimit,
  formatDuration,
  parseDataLimit,
  parseDuration,
} from '../../../controller/modules/tickets/limits.js';
import { joinGigawords, splitGigawords } from '../../../controller/radius/gigawords.js';
import {
  CODE_ALPHABET,
  CODE_LENGTH,
  generateCodes,
  isCodeShaped,
} from '../../../controller/modules/tickets/ticket-code.js';

describe('quota arithmetic', () => {
  const sizes: [string, number | null][] = [
    ['1500', 1500],
    ['500M', 500 * 2 ** 20],
    ['10G', 10 * 2 ** 30],
    ['1.5G', 1.5 * 2 ** 30],
    ['2gb', 2 * 2 ** 30],
    ['64k', 65_536],
    ['0', null],
    ['-1G', null],
    ['10 apples', null],
    ['', null],
  ];
  for (const [text, bytes] of sizes) {
    it(`reads the size ${JSON.stringify(text)} as ${bytes}`, () =>
      expect(parseDataLimit(text)).to.equal(bytes));
  }

  const durations: [string, number | null][] = [
    ['30m', 1800],
    ['1h30m', 5400],
    ['7d', 604_800],
    ['1w', 604_800],
    ['1d12h', 129_600],
    ['01:30:00', 5400],
    ['1d 02:00:00', 93_600],
    ['3600', 3600],
    ['0s', null],
    ['1x', null],
    ['', null],
  ];
  for (const [text, seconds] of durations) {
    it(`reads the duration ${JSON.stringify(text)} as ${seconds}`, () =>
      expect(parseDuration(text)).to.equal(seconds));
  }

  it('writes sizes and durations back the way people write them', () => {
    expect(formatDataLimit(10 * 2 ** 30)).to.equal('10G');
    expect(formatDataLimit(500 * 2 ** 20)).to.equal('500M');
    expect(formatDataLimit(1500)).to.equal('1500');
    expect(formatDuration(604_800)).to.equal('7d');
    expect(formatDuration(5400)).to.equal('1h30m');
    expect(formatDuration(90_061)).to.equal('1d1h1m1s');
  });

  const words: [number, number, number][] = [
    [0, 0, 0],
    [4_294_967_295, 4_294_967_295, 0],
    [4_294_967_296, 0, 1],
    [10 * 2 ** 30, 2_147_483_648, 2],
    [5 * 2 ** 32 + 7, 7, 5],
  ];
  for (const [bytes, octets, gigawords] of words) {
    it(`splits ${bytes} bytes into ${octets} octets and ${gigawords} gigawords, and back`, () => {
      expect(splitGigawords(bytes)).to.deep.equal({ octets, gigawords });
      expect(joinGigawords(octets, gigawords)).to.equal(bytes);
    });
  }
});

describe('ticket codes', () => {
  it('leaves out look-alike characters', () => {
    for (const ch of '0oO1iIlL') expect(CODE_ALPHABET).not.to.include(ch);
    expect(new Set(CODE_ALPHABET).size).to.equal(CODE_ALPHABET.length);
  });

  it('draws distinct codes of the alphabet only', () => {
    const codes = generateCodes(5000);
    expect(new Set(codes).size).to.equal(5000);
    for (const c of codes) {
      expect(c).to.have.length(CODE_LENGTH);
      expect(isCodeShaped(c), c).to.equal(true);
    }
  });

  it('uses every character about equally (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const c of generateCodes(20_000).join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    const expected = (20_000 * CODE_LENGTH) / CODE_ALPHABET.length;
    expect(counts.size).to.equal(CODE_ALPHABET.length);
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).to.be.below(0.1);
  });

  it('skips bytes that would bias the draw', () => {
    // 248..255 are skipped; 0 maps to 'a', 31 to 'a' again, 30 to the last character.
    const bytes = Buffer.from([255, 248, 0, 31, 30, 1, 2, 3, 4, 5]);
    const codes = generateCodes(1, (n) => (n === 0 ? Buffer.alloc(0) : bytes));
    expect(codes).to.deep.equal(['aa9bcdef']);
  });
});
