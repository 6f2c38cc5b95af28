import { UUID_PATTERN } from '../../core/ids.js';
import { z } from 'zod';
import { isCalendarDate } from './day.js';

export const affluenceQuery = z.object({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD')
    .refine(isCalendarDate, 'date must be a real calendar date')
    .optional(),
  nas_id: z.string().regex(UUID_PATTERN, 'nas_id must be a NAS id (UUID)').toLowerCase().optional(),
});
