// Secrets at rest: tweetnacl's secretbox (XSalsa20-Poly1305) under one 32-byte key of the
// controller, kept in its data directory (or given by the config). A sealed value is
// `sb1:<base64 nonce+box>`; opening checks the MAC, so a changed value is refused, not misread.
import nacl from 'tweetnacl';

const PREFIX = 'sb1:';

export class SecretBox {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== nacl.secretbox.keyLength) throw new RangeError('the secret box key must be 32 bytes');
    this.#key = Uint8Array.from(key);
  }

  /** A key from its base64 text (as stored in the data directory). */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(Buffer.from(text.trim(), 'base64'));
  }

  static newKeyText(): string {
    return Buffer.from(nacl.randomBytes(nacl.secretbox.keyLength)).toString('base64');
  }

  seal(plain: string): string {
    const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
    const box = nacl.secretbox(Buffer.from(plain, 'utf8'), nonce, this.#key);
    return PREFIX + Buffer.concat([nonce, box]).toString('base64');
  }

  open(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    const nonce = raw.subarray(0, nacl.secretbox.nonceLength);
    const plain = nacl.secretbox.open(raw.subarray(nacl.secretbox.nonceLength), nonce, this.#key);
    if (!plain) throw new Error('a sealed value failed its check (another key, or altered)');
    return Buffer.from(plain).toString('utf8');
  }
}
