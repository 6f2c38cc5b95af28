import { expect } from 'chai';
import nacl from 'tweetnacl';
import { signDetached, verifyDetached } from '../../../protocol/ed25519.js';

describe('protocol ed25519 (node:crypto) against tweetnacl', () => {
  const messages = ['', 'hello', JSON.stringify({ a: 1, b: ['x', 'é'] }), 'x'.repeat(10_000)];
  for (const text of messages) {
    it(`signs ${text.length} bytes exactly as tweetnacl does, and each verifies the other`, () => {
      const kp = nacl.sign.keyPair();
      const msg = new TextEncoder().encode(text);
      const ours = signDetached(msg, kp.secretKey);
      const theirs = nacl.sign.detached(msg, kp.secretKey);
      expect(Buffer.from(ours).equals(Buffer.from(theirs))).to.equal(true);
      expect(verifyDetached(msg, theirs, kp.publicKey)).to.equal(true);
      expect(nacl.sign.detached.verify(msg, ours, kp.publicKey)).to.equal(true);
    });
  }

  it('refuses a signature over other bytes or from another key', () => {
    const kp = nacl.sign.keyPair();
    const other = nacl.sign.keyPair();
    const msg = new TextEncoder().encode('command #2');
    const sig = signDetached(msg, kp.secretKey);
    expect(verifyDetached(new TextEncoder().encode('command #3'), sig, kp.publicKey)).to.equal(false);
    expect(verifyDetached(msg, sig, other.publicKey)).to.equal(false);
    const flipped = Uint8Array.from(sig);
    flipped[10] = flipped[10]! ^ 1;
    expect(verifyDetached(msg, flipped, kp.publicKey)).to.equal(false);
  });
});
