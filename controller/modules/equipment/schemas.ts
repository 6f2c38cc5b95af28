import { z } from 'zod';
import { routerText } from '../../http/field-schemas.js';

const serial = z.string().trim().min(1).max(64);
const ipv4 = z.ipv4();
const mac = z
  .string()
  .regex(/^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$/, 'expected a MAC address AA:BB:CC:DD:EE:FF');

export const scanQuery = z.object({
  router_serial: serial,
  all: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

const deviceFields = {
  name: routerText(z.string().trim().min(1).max(100)),
  device_type: z
    .string()
    .trim()
    .toUpperCase()
    .pipe(z.string().regex(/^[A-Z][A-Z0-9_]{0,31}$/)),
  lan_ip: ipv4,
  service_protocol: z.enum(['http', 'https']),
  service_port: z.int().min(1).max(65535),
  mac_address: mac.nullable().optional(),
};

export const createBody = z.object({
  router_serial: serial,
  ...deviceFields,
  pushNat: z.boolean().optional(),
});

export const syncBody = z.object({
  router_serial: serial,
  devices: z.array(z.object(deviceFields)).min(1).max(50),
  pushNat: z.boolean().optional(),
});

// Strict: a field this route does not take is refused rather than dropped, so a misspelt or
// misplaced flag never passes for a request that changed something.
export const monitorBody = z.strictObject({ enabled: z.boolean() });

/** Which router's management ports to open: the topology's PRIMARY when no serial is given. */
export const webAccessBody = z.strictObject({ router_serial: serial.optional() });

export const deviceParams = z.object({ id: z.uuid() });

export type CreateBody = z.output<typeof createBody>;
export type DeviceFields = z.output<z.ZodObject<typeof deviceFields>>;
