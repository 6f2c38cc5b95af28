import { expect } from 'chai';
import {
  SentenceDecoder,
  decodeLength,
  encodeLength,
  encodeSentence,
  encodeWord,
  sentenceToStrings,
} from '../../routeros-sim/api-wire.js';

describe('routeros-sim api-wire', () => {
  it('encodes lengths with 1 to 5 bytes at the RouterOS boundaries', () => {
    const cases: Array<[number, string]> = [
      [0, '00'],
      [0x7f, '7f'],
      [0x80, '8080'],
      [0x3fff, 'bfff'],
      [0x4000, 'c04000'],
      [0x1fffff, 'dfffff'],
      [0x200000, 'e0200000'],
      [0xfffffff, 'efffffff'],
      [0x10000000, 'f010000000'],
    ];
    for (const [n, hex] of cases) {
      expect(encodeLength(n).toString('hex'), `length ${n}`).to.equal(hex);
      expect(decodeLength(Buffer.from(hex, 'hex'))).to.deep.equal({ length: n, size: hex.length / 2 });
    }
  });

  it('decodes sentences split at every byte, keeping binary words raw', () => {
    const binary = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256));
    const wire = Buffer.concat([
      encodeSentence(['!re', '.tag=7', Buffer.concat([Buffer.from('=data='), binary])]),
      encodeSentence(['!done', '.tag=7']),
    ]);
    const decoder = new SentenceDecoder();
    const got: Buffer[][] = [];
    for (const byte of wire) got.push(...decoder.push(Buffer.from([byte])));
    expect(got).to.have.length(2);
    expect(got[0]?.[2]?.subarray(6).equals(binary)).to.equal(true);
    expect(sentenceToStrings(got[1] ?? [])).to.deep.equal(['!done', '.tag=7']);
  });

  it('encodes strings as Windows-1252 like node-routeros', () => {
    expect(encodeWord('é€').toString('hex')).to.equal('02e980');
  });
});
