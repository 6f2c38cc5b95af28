import { z } from 'zod';
import { routerText } from '../../http/field-schemas.js';

export const createAllocationBody = z.object({
  label: routerText(z.string()).trim().min(1, 'label must not be empty').max(100).optional(),
});

export const allocationParams = z.object({ id: z.uuid({ message: 'id must be a UUID' }) });
