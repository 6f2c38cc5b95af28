import { z } from 'zod';

export const createAllocationBody = z.object({
  label: z.string().trim().min(1, 'label must not be empty').max(100).optional(),
});

export const allocationParams = z.object({ id: z.uuid({ message: 'id must be a UUID' }) });
