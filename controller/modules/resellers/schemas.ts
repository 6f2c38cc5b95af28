import { z } from 'zod';
import { queryInt, routerText } from '../../http/field-schemas.js';
import { normaliseUsername } from '../tickets/index.js';

const xof = z.number({ message: 'must be a number' }).int('must be a whole number of XOF');
const percent = z.number({ message: 'must be a number' }).min(0).max(100);
// Every text of a reseller ends up in its router account's comment.
const text = (max: number) => routerText(z.string()).trim().max(max);

export const usernameParam = z.object({
  username: z.string().transform(normaliseUsername).pipe(z.string().min(1, 'username is required').max(64)),
});

export const createResellerBody = z.object({
  username: z
    .string({ message: 'username is required' })
    .transform(normaliseUsername)
    .pipe(
      z
        .string()
        .min(1, 'username is required')
        .max(64)
        .regex(/^[a-z0-9._@-]+$/, 'username may hold letters, digits and . _ @ - only'),
    ),
  balance: xof.min(0).max(1_000_000_000).default(0),
  commission_rate: percent.default(0),
  max_batch_size: z.number().int().min(1).max(10_000).default(100),
  max_users_total: z.number().int().min(1).max(10_000_000).default(1000),
  first_name: text(80).optional(),
  last_name: text(80).optional(),
  phone: text(40).optional(),
  email: text(254).optional(),
  admin_message: text(500).optional(),
  password: z.string().min(4).max(128).optional(),
});

export const updateResellerBody = z
  .object({
    max_batch_size: z.number().int().min(1).max(10_000).optional(),
    max_users_total: z.number().int().min(1).max(10_000_000).optional(),
    commission_rate: percent.optional(),
    disabled: z.boolean().optional(),
    admin_message: text(500).nullable().optional(),
    // Present only to be refused with a clear code: the balance moves through top-ups and batches.
    balance: z.unknown().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'send at least one field to change' });

export const topupBody = z.object({
  amount: xof.min(1, 'amount must be positive').max(100_000_000),
  reason: text(200).optional(),
});

export const pageQuery = z.object({
  limit: queryInt({ min: 1, max: 1000 }).default(100),
  offset: queryInt({ min: 0 }).default(0),
});

export const desktopToolBody = z.object({
  allow_desktop_login: z.boolean({ message: 'allow_desktop_login must be true or false' }),
  router_group: text(64).optional(),
  desktop_password: z.string().min(4).max(128).optional(),
});

export const batchBody = z.object({
  profile_id: routerText(z.string({ message: 'profile_id is required' }))
    .trim()
    .min(1)
    .max(128),
  quantity: z.number({ message: 'quantity is required' }).int().min(1),
  comment: text(200).optional(),
});

export const vouchersQuery = pageQuery.extend({
  reseller: z.string().transform(normaliseUsername).optional(),
  status: z.enum(['ACTIVE', 'USED', 'EXHAUSTED', 'DISABLED', 'DELETED']).optional(),
});

export const idempotencyKey = z.string().trim().min(1).max(128);
