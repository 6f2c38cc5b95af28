// Account tokens: HS256 JWTs (jose) carrying the account id and kind.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../../core/clock.js';
import type { AccountKind } from './tables.js';

export interface TokenClaims {
  accountId: string;
  kind: AccountKind;
}

/** Tokens remembered as verified (the oldest forgotten first): a few thousand sessions' worth. */
const VERIFIED_MAX = 4096;

export class JwtIssuer {
  // A KeyObject made once: given bytes, jose imports them as a WebCrypto key on every call (each
  // request's bearer check), which costs more than the HMAC itself.
  readonly #key: KeyObject;
  readonly #ttlSeconds: number;
  readonly #clock: Clock;
  // A token whose signature held is remembered with its expiry: its next uses (each request of a
  // session, and a relayed page's every asset) skip the HMAC check, never the expiry. Only the
  // exact string verified by this key is found here; the account is still read on every request.
  readonly #verified = new Map<string, TokenClaims & { exp: number }>();

  constructor(secret: string, ttlDays: number, clock: Clock) {
    this.#key = createSecretKey(Buffer.from(secret, 'utf8'));
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
      .sign(this.#key);
  }

  /** The claims of a valid token, or null (bad signature, expired, malformed). */
  async verify(token: string): Promise<TokenClaims | null> {
    const now = this.#clock.now();
    const known = this.#verified.get(token);
    // as jose: expired once `exp` is not after the current second
    if (known) {
      if (known.exp > Math.floor(now.getTime() / 1000))
        return { accountId: known.accountId, kind: known.kind };
      this.#verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: 'ticketnet',
        algorithms: ['HS256'],
        currentDate: now,
      });
      if (typeof payload.sub !== 'string' || typeof payload.kind !== 'string') return null;
      const claims = { accountId: payload.sub, kind: payload.kind as AccountKind };
      // only what needs no other check than the expiry (ours always have `exp` and never `nbf`)
      if (typeof payload.exp === 'number' && payload.nbf === undefined)
        this.#remember(token, payload.exp, claims);
      return claims;
    } catch (err) {
      if (err instanceof errors.JOSEError) return null;
      throw err;
    }
  }

  #remember(token: string, exp: number, claims: TokenClaims): void {
    if (this.#verified.size >= VERIFIED_MAX) this.#verified.delete(this.#verified.keys().next().value!);
    this.#verified.set(token, { ...claims, exp });
  }
}
