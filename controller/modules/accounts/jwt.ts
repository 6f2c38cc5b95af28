// Account tokens: HS256 JWTs (jose) carrying the account id and kind.
import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../../core/clock.js';
import type { AccountKind } from './tables.js';

export interface TokenClaims {
  accountId: string;
  kind: AccountKind;
}

export class JwtIssuer {
  /** Imported once: jose would import raw key bytes again on every sign and verify. */
  readonly #key: Promise<webcrypto.CryptoKey>;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;

  constructor(secret: string, ttlDays: number, clock: Clock) {
    this.#key = webcrypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    this.#ttlSeconds = ttlDays * 86_400;
    this.#clock = clock;
  }

  async sign(claims: TokenClaims): Promise<string> {
    const now = Math.floor(this.#clock.now().getTime() / 1000);
    return new SignJWT({ kind: claims.kind })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.accountId)
      .setIssuedAt(now)
      .setExpirationTime(now + this.#ttlSeconds)
      .setIssuer('ticketnet')
      .sign(await this.#key);
  }

  /** The claims of a valid token, or null (bad signature, expired, malformed). */
  async verify(token: string): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, await this.#key, {
        issuer: 'ticketnet',
        algorithms: ['HS256'],
        currentDate: this.#clock.now(),
      });
      if (typeof payload.sub !== 'string' || typeof payload.kind !== 'string') return null;
      return { accountId: payload.sub, kind: payload.kind as AccountKind };
    } catch (err) {
      if (err instanceof errors.JOSEError) return null;
      throw err;
    }
  }
}
