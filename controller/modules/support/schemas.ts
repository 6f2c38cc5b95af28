// Request bodies, queries and params of the hub's routes.
import { z } from 'zod';
import { AppError } from '../../core/app-error.js';
import { queryInt } from '../../http/field-schemas.js';
import { TIERS } from './rules.js';

const text = (max: number) => z.string().trim().min(1).max(max);

export const idParams = z.object({ id: z.uuid({ message: 'id must be a UUID' }) });
export const accountParams = z.object({ accountId: z.uuid({ message: 'accountId must be a UUID' }) });

export const profileBody = z
  .object({
    name: text(120),
    avatar: z.url().max(500).nullable(),
    bio: z.string().trim().max(2000).nullable(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'country must be two letters (ISO 3166)')
      .nullable(),
    tags: z.array(text(40)).max(30),
    languages: z.array(text(40)).max(20),
    // Null is "on quote"; a price is a positive amount (0 would read as free).
    price: z.number().int().min(1).max(100_000_000).nullable(),
    messenger_number: z
      .string()
      .regex(/^\+?\d{6,15}$/, 'messenger_number must be an international number')
      .transform((v) => v.replace(/^\+/, ''))
      .nullable(),
  })
  .partial()
  .strict();
export type ProfileInput = z.output<typeof profileBody>;

export const expertBody = profileBody
  .extend({
    is_active: z.boolean(),
    is_certified: z.boolean(),
    is_internal: z.boolean(),
    tier_level: z.enum(TIERS as [string, ...string[]]),
  })
  .partial()
  .strict();
export type ExpertInput = z.output<typeof expertBody> & { tier_level?: (typeof TIERS)[number] };

const STATUS_FILTERS = ['online', 'busy', 'offline'] as const;

/** The directory's status filter, exactly one of its three values, or 400 INVALID_STATUS. */
export function statusFilter(v: string | undefined): (typeof STATUS_FILTERS)[number] | undefined {
  if (v === undefined) return undefined;
  const s = STATUS_FILTERS.find((f) => f === v);
  if (!s) throw new AppError('INVALID_STATUS', 'status must be online, busy or offline');
  return s;
}

export const directoryQuery = z.object({
  // Checked by the route: a bad value answers INVALID_STATUS, the contract's own code.
  status: z.string().optional(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'country must be two letters (ISO 3166)')
    .transform((v) => v.toUpperCase())
    .optional(),
  tags: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter((t) => t !== ''),
    )
    .optional(),
  page: queryInt({ min: 1 }).default(1),
  limit: queryInt({ min: 1, max: 100 }).default(20),
});
export type DirectoryQuery = Omit<z.output<typeof directoryQuery>, 'status'> & {
  status?: 'online' | 'busy' | 'offline' | undefined;
};

export const presenceBody = z.object({ online: z.boolean().default(true) }).strict();

// `price_amount` and `payment_status` may come with a free mission: they are read and ignored.
export const missionBody = z.object({
  subject: text(200),
  description: z.string().trim().max(5000).optional(),
  category: text(100),
  is_urgent: z.boolean().default(false),
  price_amount: z.unknown().optional(),
  payment_status: z.unknown().optional(),
});
export type MissionInput = {
  subject: string;
  description?: string | undefined;
  category: string;
  is_urgent: boolean;
};

export const openMissionsQuery = z.object({ limit: queryInt({ min: 1, max: 100 }).default(50) });

export const closeBody = z.object({ resolved: z.boolean() }).strict();

export const reviewBody = z
  .object({ rating: z.number().int().min(1).max(5), comment: z.string().trim().max(1000).optional() })
  .strict();
export type ReviewInput = z.output<typeof reviewBody>;

export const noteBody = z.object({ content: text(5000) }).strict();

export const superviseBody = z
  .object({ verdict: z.enum(['VALIDE', 'A_CORRIGER']), comment: z.string().trim().max(2000).optional() })
  .strict();
export type SuperviseInput = z.output<typeof superviseBody>;
