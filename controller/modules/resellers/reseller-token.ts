// Reseller tokens are opaque random strings; only their sha256 is stored, so a database leak
// does not hand out working tokens.
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'rt_';
export const TOKEN_VALIDITY_DAYS = 365;

export const newResellerToken = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url');

export const hashResellerToken = (token: string): string => createHash('sha256').update(token).digest('hex');
