import { z } from 'zod';

export const clockBody = z.object({
  now: z.iso.datetime({ offset: true, message: 'now must be an ISO 8601 date-time' }),
});

export const jobParams = z.object({ name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'bad job name') });
