import { expect } from 'chai';
import { SecretBox } from '../../../controller/core/secret-box.js';

describe('secret box', () => {
  const box = new SecretBox(Buffer.alloc(32, 7));
  const other = new SecretBox(Buffer.alloc(32, 8));

  // [plain text, context]: each opens with its own context and gives the text back.
  const roundTrips: [string, string | undefined][] = [
    ['sk_live_123', 'shop merchant key|tenant-a'],
    ['wg private key', 'remote-access profile|p1|private_key'],
    ['no context', undefined],
    ['', 'empty text'],
    ['accents é and emoji 🔑', 'unicode'],
    ['x'.repeat(10_000), 'long'],
  ];
  for (const [plain, context] of roundTrips) {
    it(`seals and opens ${JSON.stringify(plain.slice(0, 24))} (context ${JSON.stringify(context)})`, () => {
      const sealed = box.seal(plain, context);
      if (plain) expect(sealed).to.not.include(plain);
      expect(sealed).to.match(/^s1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/);
      expect(box.seal(plain, context)).to.not.equal(sealed); // a fresh IV each time
      expect(box.open(sealed, context)).to.equal(plain);
    });
  }

  const sealed = box.seal('s3cret', 'tenant-a');
  const [v, iv, tag, body] = sealed.split('.') as [string, string, string, string];
  const flip = (part: string) => (part[0] === 'A' ? 'B' : 'A') + part.slice(1);

  // [what, how it is opened]: each must throw, never answer another text.
  const refused: [string, () => string][] = [
    ['another context', () => box.open(sealed, 'tenant-b')],
    ['no context for a bound value', () => box.open(sealed)],
    ['a context for an unbound value', () => box.open(box.seal('s3cret'), 'tenant-a')],
    ['another key', () => other.open(sealed, 'tenant-a')],
    ['an altered body', () => box.open([v, iv, tag, flip(body)].join('.'), 'tenant-a')],
    ['an altered tag', () => box.open([v, iv, flip(tag), body].join('.'), 'tenant-a')],
    ['an altered IV', () => box.open([v, flip(iv), tag, body].join('.'), 'tenant-a')],
    ['a truncated tag', () => box.open([v, iv, tag.slice(0, 8), body].join('.'), 'tenant-a')],
    ['another version', () => box.open(['s2', iv, tag, body].join('.'), 'tenant-a')],
    ['a missing part', () => box.open([v, iv, tag].join('.'), 'tenant-a')],
    ['an extra part', () => box.open([v, iv, tag, body, 'x'].join('.'), 'tenant-a')],
    ['characters outside base64url', () => box.open([v, iv, tag, `${body}+/`].join('.'), 'tenant-a')],
    ['a plain text', () => box.open('s3cret', 'tenant-a')],
    ['an empty text', () => box.open('', 'tenant-a')],
    ['the former tweetnacl format', () => box.open('sb1:AAAA', 'tenant-a')],
  ];
  for (const [what, open] of refused) it(`refuses ${what}`, () => expect(open).to.throw(Error));

  for (const bytes of [0, 16, 31, 33, 64])
    it(`refuses a key of ${bytes} bytes`, () =>
      expect(() => new SecretBox(Buffer.alloc(bytes))).to.throw(RangeError));

  it('takes its key as base64 text and makes fresh 32-byte keys', () => {
    const text = SecretBox.newKeyText();
    expect(Buffer.from(text, 'base64')).to.have.length(32);
    expect(SecretBox.newKeyText()).to.not.equal(text);
    const a = SecretBox.fromBase64(text);
    expect(SecretBox.fromBase64(`${text}\n`).open(a.seal('x', 'c'), 'c')).to.equal('x');
    expect(() =>
      SecretBox.fromBase64(text).open(SecretBox.fromBase64(SecretBox.newKeyText()).seal('x')),
    ).to.throw();
  });
});
