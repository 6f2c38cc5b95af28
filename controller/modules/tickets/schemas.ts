import { z } from 'zod';
import { queryInt, routerText } from '../../http/field-schemas.js';
import { parseDataLimit, parseDuration } from './limits.js';
import { TICKET_STATUSES } from './tables.js';

/** MikroTik rate-limit: `rx/tx` then optional burst rates, thresholds, times, priority, minimum rates. */
const RATE =
  /^\d+(\.\d+)?[kKmMgG]?\/\d+(\.\d+)?[kKmMgG]?( (\d+(\.\d+)?[kKmMgG]?\/\d+(\.\d+)?[kKmMgG]?|\d+)){0,5}$/;

/** A size: bytes as an integer, or `500M`, `10G` (binary units, as RouterOS reads them). */
const dataLimit = z.union([
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  z.string().transform((v, ctx) => {
    const bytes = parseDataLimit(v);
    if (bytes === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as 500M or 10G' });
      return z.NEVER;
    }
    return bytes;
  }),
]);

/** A duration: seconds as an integer, or `30m`, `1h30m`, `7d`, `01:30:00`. */
const duration = z.union([
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  z.string().transform((v, ctx) => {
    const seconds = parseDuration(v);
    if (seconds === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration such as 1h, 30m or 7d' });
      return z.NEVER;
    }
    return seconds;
  }),
]);

export const profileParams = z.object({ name: routerText(z.string().min(1).max(64)) });

/** Absent keeps a value, null clears it. */
export const profileBody = z.strictObject({
  price: z.number().int('price is an integer number of XOF').min(0).nullable().optional(),
  data_limit: dataLimit.nullable().optional(),
  time_limit: duration.nullable().optional(),
  validity: duration.nullable().optional(),
  rate_limit: z
    .string()
    .trim()
    .regex(RATE, 'expected a MikroTik rate limit such as 2M/2M')
    .nullable()
    .optional(),
});

export const createTicketsBody = z.strictObject({
  profile_id: routerText(z.string()).trim().min(1, 'profile_id is required').max(64),
  quantity: z.number().int('quantity must be an integer').min(1).max(1000),
  comment: routerText(z.string()).trim().max(200).nullable().optional(),
});

export const listTicketsQuery = z.object({
  status: z.enum(TICKET_STATUSES as [string, ...string[]]).optional(),
  limit: queryInt({ min: 1, max: 1000 }).default(100),
  offset: queryInt({ min: 0 }).default(0),
});

export const ticketParams = z.object({ code: z.string().min(1).max(64) });

export const patchTicketBody = z.strictObject({
  status: z.enum(['ACTIVE', 'DISABLED', 'DELETED'], {
    message: 'status must be ACTIVE, DISABLED or DELETED',
  }),
});
