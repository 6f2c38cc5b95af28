import { z } from 'zod';
import { queryInt } from '../../http/field-schemas.js';
import { DEVICE_PLATFORMS } from './tables.js';

/** `?unread`, `?unread=true|1` → only unread; absent, `false` or `0` → all. */
const unreadFlag = z
  .enum(['', 'true', 'false', '1', '0'], { message: 'unread must be true, false, 1 or 0' })
  .optional()
  .transform((v) => v === '' || v === 'true' || v === '1');

export const inboxQuery = z.object({
  unread: unreadFlag,
  limit: queryInt({ min: 1, max: 200 }).default(50),
  offset: queryInt({ min: 0 }).default(0),
});

export const notificationParams = z.object({ id: z.string().min(1).max(64) });

/** The read routes take no body; anything sent is refused rather than silently ignored. */
export const emptyBody = z.strictObject({});

export const deviceBody = z.strictObject({
  token: z
    .string({ message: 'token is required' })
    .trim()
    .min(16, 'token is too short to be a push token')
    .max(1024)
    .regex(/^[\x21-\x7e]+$/, 'token must be printable ASCII without spaces'),
  platform: z.enum(DEVICE_PLATFORMS, { message: `platform must be one of ${DEVICE_PLATFORMS.join(', ')}` }),
});
