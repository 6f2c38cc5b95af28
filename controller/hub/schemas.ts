import { z } from 'zod';

export const allocationParams = z.object({ id: z.uuid({ message: 'id must be a UUID' }) });

export const commandParams = z.object({
  id: z.uuid({ message: 'id must be a UUID' }),
  commandId: z.uuid({ message: 'commandId must be a UUID' }),
});

export const enqueueCommandBody = z.object({
  name: z.string().min(1).max(64),
  params: z.record(z.string(), z.unknown()).default({}),
  /** Deadline from now; the catalogue's default timeout when absent. */
  timeout_seconds: z.int().min(1).max(86_400).optional(),
});
