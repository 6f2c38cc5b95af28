import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Api } from '../../http/api.js';
import { errorFields, type Logger } from '../../logger.js';

export function healthRoutes(api: Api, deps: { db: Db; logger: Logger; version: string }): void {
  api.route(
    {
      method: 'get',
      path: '/healthz',
      summary: 'Liveness and database reachability',
      tags: ['health'],
      auth: 'public',
    },
    async (ctx) => {
      let database = 'ok';
      try {
        await sql`select 1`.execute(deps.db);
      } catch (err) {
        // The answer says only "unreachable"; why is for the operator's log.
        deps.logger.error(errorFields(err, deps.logger), 'health check: database unreachable');
        database = 'unreachable';
      }
      ctx.status = database === 'ok' ? 200 : 503;
      ctx.body = { status: database === 'ok' ? 'ok' : 'degraded', version: deps.version, database };
    },
  );
}
