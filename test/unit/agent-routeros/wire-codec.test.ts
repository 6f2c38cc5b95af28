import { expect } from 'chai';
import {
  ApiFramingError,
  MAX_WORD_BYTES,
  SentenceDecoder,
  encodeLength,
  encodeSentence,
} from '../../../agent/routeros/sentence-decoder.js';
import { decodeWin1252, encodeWin1252 } from '../../../agent/routeros/win1252.js';
import { SentenceDecoder as SimDecoder, encodeSentence as simEncode } from '../../routeros-sim/api-wire.js';

describe('word length encoding', () => {
  const cases: [number, number[]][] = [
    [0, [0x00]],
    [0x7f, [0x7f]],
    [0x80, [0x80, 0x80]],
    [0x3fff, [0xbf, 0xff]],
    [0x4000, [0xc0, 0x40, 0x00]],
    [0x1fffff, [0xdf, 0xff, 0xff]],
    [0x200000, [0xe0, 0x20, 0x00, 0x00]],
    [0xfffffff, [0xef, 0xff, 0xff, 0xff]],
    [0x10000000, [0xf0, 0x10, 0x00, 0x00, 0x00]],
  ];
  for (const [n, bytes] of cases) {
    it(`${n} → ${bytes.map((b) => b.toString(16)).join(' ')}`, () => {
      expect([...encodeLength(n)]).to.deep.equal(bytes);
    });
  }
});

describe('SentenceDecoder', () => {
  const words = (sentence: Buffer[]): string[] => sentence.map((w) => w.toString('latin1'));
  const stream = Buffer.concat([
    encodeSentence([Buffer.from('!re'), Buffer.from('.tag=7'), Buffer.from('=comment=' + 'z'.repeat(200))]),
    encodeSentence([Buffer.from('!re'), Buffer.from('=data='.padEnd(20000, 'q'))]),
    encodeSentence([Buffer.from('!done'), Buffer.from('.tag=7')]),
  ]);
  const expected = [
    ['!re', '.tag=7', '=comment=' + 'z'.repeat(200)],
    ['!re', '=data='.padEnd(20000, 'q')],
    ['!done', '.tag=7'],
  ];

  it('decodes a stream cut at every possible byte', () => {
    for (let cut = 1; cut < stream.length; cut += cut < 300 ? 1 : 97) {
      const d = new SentenceDecoder();
      const out = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))].map(words);
      expect(out, `cut at ${cut}`).to.deep.equal(expected);
    }
  });

  it('decodes a stream fed one byte at a time', () => {
    const d = new SentenceDecoder();
    const out: string[][] = [];
    for (const b of stream) out.push(...d.push(Buffer.from([b])).map(words));
    expect(out).to.deep.equal(expected);
  });

  it('agrees with the simulator codec (independent implementation)', () => {
    const sentence = ['/file/read', '=file=a b', '=x=' + 'é'.repeat(300)];
    const ours = encodeSentence(sentence.map((w) => encodeWin1252(w)));
    expect(ours.equals(simEncode(sentence))).to.equal(true);
    const back = new SimDecoder().push(ours)[0]!.map((w) => decodeWin1252(w));
    expect(back).to.deep.equal(sentence);
  });

  it('refuses reserved control bytes and absurd lengths', () => {
    expect(() => new SentenceDecoder().push(Buffer.from([0xf8]))).to.throw(ApiFramingError);
    const huge = Buffer.concat([encodeLength(MAX_WORD_BYTES + 1), Buffer.from('x')]);
    expect(() => new SentenceDecoder().push(huge)).to.throw(ApiFramingError);
  });
});

describe('win1252', () => {
  it('round-trips every byte value, the five undefined ones included', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(encodeWin1252(decodeWin1252(all)).equals(all)).to.equal(true);
  });

  const cases: [string, number[]][] = [
    ['abc', [0x61, 0x62, 0x63]],
    ['réseau', [0x72, 0xe9, 0x73, 0x65, 0x61, 0x75]],
    ['€', [0x80]],
    ['œ', [0x9c]],
    ['日', [0x3f]],
    ['😀', [0x3f]],
  ];
  for (const [text, bytes] of cases) {
    it(`"${text}"`, () => expect([...encodeWin1252(text)]).to.deep.equal(bytes));
  }
});
