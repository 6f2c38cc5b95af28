// Secrets at rest: AES-256-GCM (node:crypto) under the controller's one 32-byte key, built once
// by the controller and handed to the modules (docs/decisions.md). A sealed value is
// `s1.<iv>.<tag>.<body>` (base64url). The optional context is authenticated associated data: a
// value sealed for one row (a tenant, an allocation, a key set) does not open for another, so a
// sealed value copied between rows or columns is refused instead of being used. Opening checks
// the tag: an altered value, another key or another context throws, never answers garbage.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 's1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PART = /^[A-Za-z0-9_-]*$/;

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== KEY_BYTES) throw new RangeError(`the secret box key must be ${KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  /** A box from its key's base64 text (the config's or the data directory's). */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(Buffer.from(text.trim(), 'base64'));
  }

  /** A fresh key as base64 text, for the data directory when the config gives none. */
  static newKeyText(): string {
    return randomBytes(KEY_BYTES).toString('base64');
  }

  seal(plain: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body].map((p) => p.toString('base64url')).join('.');
  }

  /** Throws unless `sealed` was sealed by this key for this context and left unchanged. */
  open(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    const [version, ivText, tagText, bodyText] = parts;
    if (parts.length !== 4 || version !== VERSION || !parts.every((p) => PART.test(p)))
      throw new Error('not a sealed value');
    const iv = Buffer.from(ivText!, 'base64url');
    const tag = Buffer.from(tagText!, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('not a sealed value');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      const body = Buffer.from(bodyText!, 'base64url');
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a sealed value failed its check (another key, another context, or altered)');
    }
  }
}
