// Operator and test routes. The clock route exists only on a controller started with
// `--clock manual`; the job-run route only with `--job-run-route`.
import { ManualClock, iso, type Clock } from '../../core/clock.js';
import type { Api } from '../../http/api.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import { clockBody, jobParams } from './schemas.js';

export function adminRoutes(
  api: Api,
  deps: { clock: Clock; scheduler: Scheduler; jobRunRoute: boolean },
): void {
  const { clock, scheduler } = deps;
  if (clock instanceof ManualClock) {
    api.route(
      {
        method: 'put',
        path: '/api/v1/admin/clock',
        summary: 'Set the controller clock (manual clock only)',
        tags: ['admin'],
        auth: ['admin'],
        body: clockBody,
      },
      async (_ctx, { body }) => {
        clock.set(new Date(body.now));
        return { success: true, data: { now: iso(clock.now()) } };
      },
    );
  }

  if (deps.jobRunRoute) {
    api.route(
      {
        method: 'post',
        path: '/api/v1/admin/jobs/:name/run',
        summary: 'Run one scheduled job now',
        tags: ['admin'],
        auth: ['admin'],
        params: jobParams,
      },
      async (_ctx, { params }) => ({ success: true, data: await scheduler.runNow(params.name) }),
    );
  }

  api.route(
    {
      method: 'get',
      path: '/api/v1/admin/jobs',
      summary: 'Scheduled jobs with their lease and last run',
      tags: ['admin'],
      auth: ['admin'],
    },
    async () => ({ success: true, data: await scheduler.list() }),
  );
}
