// RouterOS API login: 6.43+ takes the password in /login; older versions
// answer an MD5 challenge first. The reply tells which, so no version is needed.
import { createHash } from 'node:crypto';
import type { ApiSocket } from './api-socket.js';
import { RouterError } from './router-error.js';
import { encodeWin1252 } from './win1252.js';

export async function login(
  api: ApiSocket,
  user: string,
  password: string,
  timeoutMs: number,
): Promise<void> {
  const options = { timeoutMs, phase: 'login' as const };
  const first = await api.call(['/login', `=name=${user}`, `=password=${password}`], options);
  const challenge = first.done.get('ret')?.toString('latin1');
  if (challenge === undefined || challenge === '') return;
  if (!/^[0-9a-f]{32}$/i.test(challenge)) {
    throw new RouterError('ROUTER_AUTH_FAILED', `router ${api.endpoint}: unexpected /login challenge`);
  }
  const digest = createHash('md5')
    .update(Buffer.concat([Buffer.from([0]), encodeWin1252(password), Buffer.from(challenge, 'hex')]))
    .digest('hex');
  await api.call(['/login', `=name=${user}`, `=response=00${digest}`], options);
}
