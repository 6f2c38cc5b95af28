import { z } from 'zod';
import { isCalendarDate } from './day.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const affluenceQuery = z.object({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be written YYYY-MM-DD')
    .refine(isCalendarDate, 'date must be a real calendar date')
    .optional(),
  nas_id: z.string().regex(UUID, 'nas_id must be a NAS id (UUID)').toLowerCase().optional(),
});
