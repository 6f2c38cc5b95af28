import { z } from 'zod';
import { queryInt } from '../../http/field-schemas.js';
import { normaliseUsername } from '../tickets/index.js';
import { SALES_RECORD_TYPES } from './tables.js';

const allocationId = z.uuid({ message: 'allocation_id must be a UUID' });
const dayOrTime = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  message: 'must be a date (YYYY-MM-DD) or an ISO 8601 time',
});

export const importBody = z.object({
  allocation_id: allocationId,
  /** Entries per router page; the default suits 10,000+ entries in a few round trips. */
  page_size: z.number().int().min(1).max(5000).optional(),
});

export const salesQuery = z
  .object({
    allocation_id: allocationId.optional(),
    type: z.enum(SALES_RECORD_TYPES as [string, ...string[]]).optional(),
    reseller: z
      .string()
      .transform(normaliseUsername)
      .pipe(z.string().min(1, 'reseller must not be blank').max(64))
      .optional(),
    from: dayOrTime.optional(),
    to: dayOrTime.optional(),
    limit: queryInt({ min: 1, max: 1000 }).default(100),
    offset: queryInt({ min: 0 }).default(0),
  })
  .refine((q) => q.from === undefined || q.to === undefined || startOf(q.from) <= startOf(q.to), {
    path: ['to'],
    message: 'to must not be before from',
  });

export const summaryQuery = z.object({
  allocation_id: allocationId.optional(),
  year: queryInt({ min: 2000, max: 2100 }).optional(),
});

/** The instant a date or time starts at, as ISO (sold_at is stored in Date#toISOString form). */
export function startOf(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : new Date(value).toISOString();
}
