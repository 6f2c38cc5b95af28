// OAuth2 access tokens for FCM HTTP v1 from a Google service account key: a JWT signed RS256 with
// the account's private key is exchanged at the token endpoint (JWT-bearer grant). The token is
// kept until a minute before it expires; time comes from the injected clock.
import { readFile } from 'node:fs/promises';
import { importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import { ConfigError } from '../../config.js';
import type { Clock } from '../../core/clock.js';
import type { HttpClient } from './http-client.js';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const serviceAccountSchema = z.object({
  project_id: z.string().min(1).optional(),
  client_email: z.string().min(3),
  private_key: z.string().includes('PRIVATE KEY', { message: 'expected a PEM private key' }),
  private_key_id: z.string().min(1).optional(),
  token_uri: z.url().default(DEFAULT_TOKEN_URI),
});

export type ServiceAccount = z.infer<typeof serviceAccountSchema>;

/** A service account file that is missing or not a service account key: the controller refuses to start. */
export class FcmConfigError extends ConfigError {}

export async function loadServiceAccount(path: string): Promise<ServiceAccount> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new FcmConfigError(`cannot read the FCM service account ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FcmConfigError(`the FCM service account ${path} is not JSON`);
  }
  const parsed = serviceAccountSchema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join('.') || 'file').join(', ');
    throw new FcmConfigError(`the FCM service account ${path} lacks or mangles: ${fields}`);
  }
  return parsed.data;
}

/** The token endpoint refused or failed: a failed push attempt, retried later. */
export class AccessTokenError extends Error {}

export class GoogleAccessTokens {
  #cached: { token: string; until: number } | null = null;
  #pending: Promise<string> | null = null;

  constructor(
    private readonly account: ServiceAccount,
    private readonly http: HttpClient,
    private readonly clock: Clock,
  ) {}

  /** A valid access token; callers that arrive while one is fetched share that fetch. */
  async token(): Promise<string> {
    const now = this.clock.now().getTime();
    if (this.#cached && this.#cached.until > now) return this.#cached.token;
    this.#pending ??= this.#fetch().finally(() => (this.#pending = null));
    return this.#pending;
  }

  /** Forgets the cached token (FCM answered 401 with it). */
  invalidate(): void {
    this.#cached = null;
  }

  async #fetch(): Promise<string> {
    const issued = Math.floor(this.clock.now().getTime() / 1000);
    const key = await importPKCS8(this.account.private_key, 'RS256');
    const header = {
      alg: 'RS256',
      typ: 'JWT',
      ...(this.account.private_key_id ? { kid: this.account.private_key_id } : {}),
    };
    const assertion = await new SignJWT({ scope: FCM_SCOPE })
      .setProtectedHeader(header)
      .setIssuer(this.account.client_email)
      .setAudience(this.account.token_uri)
      .setIssuedAt(issued)
      .setExpirationTime(issued + 3600)
      .sign(key);
    const res = await this.http({
      method: 'POST',
      url: this.account.token_uri,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString(),
    });
    const answer = parseTokenAnswer(res.body);
    if (res.status !== 200 || !answer) {
      throw new AccessTokenError(`token endpoint answered ${res.status}`);
    }
    // Renew a minute early so a token never expires between the check and its use.
    const lifetime = Math.max(0, (answer.expires_in - 60) * 1000);
    this.#cached = { token: answer.access_token, until: issued * 1000 + lifetime };
    return answer.access_token;
  }
}

const tokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive().default(3600),
});

function parseTokenAnswer(body: string): z.infer<typeof tokenAnswer> | null {
  try {
    const parsed = tokenAnswer.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON: an error page
  }
}
