import type { RouterCallOptions, RouterConnection } from './router-connection.js';

/** Round trip of one cheap API call (the identity), in milliseconds; connecting is not counted. */
export async function ping(
  conn: RouterConnection,
  options: RouterCallOptions = {},
): Promise<{ rtt_ms: number }> {
  await conn.connect();
  const start = process.hrtime.bigint();
  await conn.print('/system/identity', { ...options, proplist: ['name'] });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { rtt_ms: Math.round(ms * 100) / 100 };
}
