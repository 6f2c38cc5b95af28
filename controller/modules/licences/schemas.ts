import { z } from 'zod';

export const grantBody = z.object({
  client_id: z.uuid({ message: 'client_id must be a UUID' }),
  plan_code: z.string().trim().min(1).max(64),
});
