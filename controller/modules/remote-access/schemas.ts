import { z } from 'zod';
import { routerText } from '../../http/field-schemas.js';
import { routerOsMajor } from './transport-choice.js';

const uuid = (name: string) => z.uuid({ message: `${name} must be a UUID` });

export const resolveBody = z.object({
  allocation_id: uuid('allocation_id').optional(),
  routeros_version: z
    .string({ message: 'routeros_version is required (the major version decides the transport)' })
    .max(64)
    .refine((v) => routerOsMajor(v) !== undefined, 'routeros_version must look like 6.49.10 or 7.19')
    .refine((v) => [6, 7].includes(routerOsMajor(v) ?? 0), 'only RouterOS 6 and 7 are supported'),
  protocol: z
    .literal('SSTP', { message: 'protocol may only be SSTP (omit it to keep the transport)' })
    .optional(),
  router_serial: routerText(z.string()).trim().min(1).max(64).optional(),
  router_identity: routerText(z.string()).max(200).optional(),
  router_mac: z
    .string()
    .regex(/^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$/, 'router_mac must be a MAC address')
    .optional(),
  router_model: routerText(z.string()).max(200).optional(),
  api_mode: z.literal('native', { message: 'api_mode may only be native' }).optional(),
});
export type ResolveBody = z.output<typeof resolveBody>;

// candidate_channel_id is checked by the service, not here: its absence and a value that is not a
// channel (a protocol name, a profile id) have their own codes, not VALIDATION_ERROR.
export const probeBody = z.object({
  operation_id: uuid('operation_id'),
  allocation_id: uuid('allocation_id'),
  candidate_channel_id: z.unknown().optional(),
  previous_channel_id: uuid('previous_channel_id').nullable().optional(),
  requested_transport: z.enum(['WIREGUARD', 'SSTP'], {
    message: 'requested_transport must be WIREGUARD or SSTP',
  }),
});
export type ProbeBody = z.output<typeof probeBody>;

export const operationParams = z.object({ operationId: uuid('operationId') });

export const credentialsBody = z.object({
  allocation_id: uuid('allocation_id'),
  username: routerText(z.string()).min(1).max(64),
  password: z.string().min(1).max(256),
  /** RouterOS API port, when it is not the one the agent already uses. */
  api_port: z.int().min(1).max(65535).optional(),
});
export type CredentialsBody = z.output<typeof credentialsBody>;

export const rescueBody = z.object({ allocation_id: uuid('allocation_id') });
export const allocationQuery = z.object({ allocation_id: uuid('allocation_id') });
