import { expect } from 'chai';
import { hashPassword, passwordWeakness, verifyPassword } from '../../../controller/core/password.js';

describe('password rules', () => {
  const accepted = ['abcd1234', 'Tr0ub4dor&3', 'motdepasse2026', 'a1b2c3d4', 'abc1'.repeat(32)];
  for (const p of accepted) {
    it(`accepts ${JSON.stringify(p.slice(0, 20))}`, () => expect(passwordWeakness(p)).to.equal(null));
  }
  const refused: [string, RegExp][] = [
    ['', /at least 8/],
    ['abc123', /at least 8/],
    ['abcdefgh', /letters and digits/],
    ['12345678', /letters and digits/],
    ['aaaa1111', /4 different/],
    ['a1'.repeat(65), /at most 128/],
  ];
  for (const [p, why] of refused) {
    it(`refuses ${JSON.stringify(p.slice(0, 20))}`, () => expect(passwordWeakness(p)).to.match(why));
  }

  it('hashes with scrypt and a salt, and verifies', async () => {
    const a = await hashPassword('abcd1234');
    const b = await hashPassword('abcd1234');
    expect(a).to.match(/^scrypt\$16384\$8\$1\$/);
    expect(a).to.not.equal(b);
    expect(await verifyPassword('abcd1234', a)).to.equal(true);
    expect(await verifyPassword('abcd1235', a)).to.equal(false);
    expect(await verifyPassword('abcd1234', 'md5$xyz')).to.equal(false);
  });
});
