// Request schemas of the shop routes (rules: docs/api/shop.md).
import { z } from 'zod';
import { routerText } from '../../http/field-schemas.js';

const xof = z.number({ message: 'must be a number' }).int('must be a whole number of XOF');

/** Exact hotspot profile name, as the router spells it. */
const profileName = routerText(z.string({ message: 'name is required' }).min(1, 'name is required').max(64));
const limitText = routerText(z.string().max(32)).nullable().optional();

export const shopProfileEntry = z.object({
  name: profileName,
  price: xof.min(0).max(10_000_000).nullable().optional(),
  data_limit: limitText,
  time_limit: limitText,
  validity: limitText,
  display_name: routerText(z.string().min(1).max(100)).nullable().optional(),
  is_active: z.boolean({ message: 'must be a boolean' }).optional(),
  action: z.enum(['delete'], { message: 'must be "delete" or absent' }).optional(),
});

export type ShopProfileEntry = z.output<typeof shopProfileEntry>;

export const syncProfilesBody = z.object({
  nas_id: z.string().max(64).nullable().optional(),
  profiles: z
    .array(shopProfileEntry, { message: 'profiles must be an array' })
    .max(500)
    .superRefine((entries, ctx) => {
      const seen = new Set<string>();
      entries.forEach((e, i) => {
        if (seen.has(e.name))
          ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate name ${e.name}` });
        seen.add(e.name);
      });
    }),
  metadata: z
    .object({ source: z.string().max(64).optional(), app_version: z.string().max(64).optional() })
    .nullable()
    .optional(),
});

export const hotspotProfilesQuery = z.object({
  force: z.enum(['true', 'false']).optional(),
  allocation_id: z.uuid().optional(),
});

/** URL-safe: lowercase letters, digits and inner hyphens, 3 to 63 characters. */
export const STORE_SLUG = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;

const jsonObject = z.record(z.string(), z.json());

/** The payment settings; `merchant_key` is sealed at rest and never answered. */
const portalEditor = z
  .object({ merchant_key: z.string().min(1).max(512).nullable().optional() })
  .catchall(z.json());

const storeSettings = z.object({ portal_editor: portalEditor.nullable().optional() }).catchall(z.json());

export const storeConfigBody = z.strictObject({
  display_name: z.string().trim().min(1).max(100).nullable().optional(),
  logo_url: z
    .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
    .max(2048)
    .nullable()
    .optional(),
  store_slug: z
    .string()
    .regex(STORE_SLUG, 'must be 3 to 63 lowercase letters, digits or inner hyphens')
    .nullable()
    .optional(),
  branding: jsonObject.nullable().optional(),
  plans: z.array(z.json()).max(200).nullable().optional(),
  store_settings: storeSettings.nullable().optional(),
  /** Read only: accepted (and ignored) so a GET answer can be sent back as it is. */
  updated_at: z.string().max(64).nullable().optional(),
});

export type StoreConfigBody = z.output<typeof storeConfigBody>;

export const withdrawalBody = z.strictObject({
  /** Whole XOF; absent: the whole available balance. */
  amount: xof.min(1).max(1_000_000_000).optional(),
});

export const walletFreezeBody = z.strictObject({ withdrawals_enabled: z.boolean() });
export const clientParam = z.object({ clientId: z.uuid() });
