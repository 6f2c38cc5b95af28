import { expect } from 'chai';
import {
  derivePublicKey,
  generateKeyPair,
  generateSessionNonce,
  publicKeyFingerprint,
} from '../../../protocol/index.js';
import { expectProtocolError } from './fixtures.js';

describe('protocol keys', () => {
  it('generates base64 keys of Ed25519 sizes, different each time', () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    expect(Buffer.from(a.publicKey, 'base64')).to.have.length(32);
    expect(Buffer.from(a.secretKey, 'base64')).to.have.length(64);
    expect(a.publicKey).to.not.equal(b.publicKey);
  });

  it('derives the public key from the secret key', () => {
    const pair = generateKeyPair();
    expect(derivePublicKey(pair.secretKey)).to.equal(pair.publicKey);
  });

  // SHA-256 of 32 zero bytes is 66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925.
  it('fingerprints a key as the first 16 hex digits of its SHA-256', () => {
    expect(publicKeyFingerprint(Buffer.alloc(32).toString('base64'))).to.equal('66687aadf862bd77');
  });

  it('gives different keys different fingerprints', () => {
    const { publicKey } = generateKeyPair();
    expect(publicKeyFingerprint(publicKey)).to.match(/^[0-9a-f]{16}$/);
    expect(publicKeyFingerprint(publicKey)).to.not.equal(publicKeyFingerprint(generateKeyPair().publicKey));
  });

  const badPublicKeys: Array<[string, string]> = [
    ['empty', ''],
    ['31 bytes', Buffer.alloc(31).toString('base64')],
    ['33 bytes', Buffer.alloc(33).toString('base64')],
    ['URL-safe alphabet', Buffer.alloc(32, 0xfb).toString('base64url')],
    ['unpadded', Buffer.alloc(32).toString('base64').replace(/=+$/, '')],
    ['junk characters', `${Buffer.alloc(32).toString('base64')}!`],
    ['a secret key', generateKeyPair().secretKey],
  ];
  for (const [name, key] of badPublicKeys) {
    it(`refuses a public key that is ${name} with BAD_KEY`, () =>
      expectProtocolError(() => publicKeyFingerprint(key), 'BAD_KEY'));
  }

  it('refuses a public key in place of a secret key with BAD_KEY, without echoing it', () => {
    const { publicKey } = generateKeyPair();
    const err = expectProtocolError(() => derivePublicKey(publicKey), 'BAD_KEY');
    expect(err.message).to.not.contain(publicKey);
  });

  it('makes 32-byte session nonces that do not repeat', () => {
    const a = generateSessionNonce();
    expect(Buffer.from(a, 'base64')).to.have.length(32);
    expect(generateSessionNonce()).to.not.equal(a);
  });
});
