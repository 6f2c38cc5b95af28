// Request shapes of the bandwidth routes. The programme body is checked by programme-rules.ts,
// in the contract's error order; here it only has to be a JSON object.
import { z } from 'zod';
import { queryInt } from '../../http/field-schemas.js';

export const programmeBody = z.record(z.string(), z.unknown());

export const nasParams = z.object({ nasId: z.string().min(1).max(100) });

export const activityQuery = z.object({
  limite: queryInt({ min: 1, max: 200 }).default(50),
  avant: z.string().min(1).max(500).optional(),
  nas_id: z.string().min(1).max(100).optional(),
});

export const impactQuery = z.object({
  jours: queryInt({ min: 7, max: 180 }).default(30),
  nas_id: z.string().min(1).max(100).optional(),
});

export const reconcileQuery = z.object({
  limite: queryInt({ min: 1, max: 200 }).default(40),
});

const hour = z.int().min(0).max(23).nullable();

export const preferencesBody = z
  .strictObject({
    bandwidth_push: z.boolean().optional(),
    quiet_start: hour.optional(),
    quiet_end: hour.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one preference' });
