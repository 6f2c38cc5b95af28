// The merchant payment key at rest: AES-256-GCM under a key kept in the controller's data
// directory (generated once), the tenant bound as associated data so a sealed key copied to
// another tenant's row does not open. Answers never carry it; only the payment path opens it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class MerchantKeyCipher {
  readonly #key: Buffer;

  /** `secret`: any high-entropy text (the data directory's `shop-key-secret`). */
  constructor(secret: string) {
    this.#key = createHash('sha256').update(`ticketnet shop merchant key|${secret}`).digest();
  }

  seal(clientId: string, plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(clientId, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Throws when the text was not sealed by this key for this tenant. */
  open(clientId: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new Error('not a sealed merchant key');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(clientId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
