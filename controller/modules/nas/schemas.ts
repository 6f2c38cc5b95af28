import { z } from 'zod';
import { AppError } from '../../core/app-error.js';
import type { EnrolInput } from './service.js';

const SERIAL_MAX = 64;

const enrolBody = z.object({
  router_serial: z.string().min(1).max(SERIAL_MAX),
  apply_mode: z.enum(['app_apply']).optional(),
  /**
   * How the router reaches RADIUS: `relay` through its site agent, `direct` over a VPN straight to
   * this controller's UDP RADIUS from `nas_address`. Absent: as its NAS already does (relay when new).
   */
  radius_transport: z.enum(['relay', 'direct']).optional(),
  /** The router's source address on the VPN (IPv4), with `radius_transport: direct` only. */
  nas_address: z.ipv4().optional(),
});

/**
 * The POST /nas body as the OpenAPI document shows it. It lets anything through (`catch` hands
 * the input back): the handler parses it itself, because a missing serial must answer
 * ROUTER_SERIAL_REQUIRED, not the generic VALIDATION_ERROR, and only after the licence.
 */
export const enrolBodyDoc = enrolBody.catch((ctx) => ctx.value as z.output<typeof enrolBody>);

const serialRequired = (message: string) =>
  new AppError('ROUTER_SERIAL_REQUIRED', message, { details: [{ field: 'router_serial', message }] });

/** `{router_serial, apply_mode?}`; anything else the body holds is ignored (never `client_id`). */
export function parseEnrolBody(body: unknown): EnrolInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw serialRequired('router_serial is required (send a JSON object)');
  }
  const {
    router_serial: serial,
    apply_mode: mode,
    radius_transport: transport,
    nas_address: address,
  } = body as Record<string, unknown>;
  if (typeof serial !== 'string' || serial.trim() === '') {
    throw serialRequired('router_serial is required (a non-empty string)');
  }
  if (serial.trim().length > SERIAL_MAX) {
    throw serialRequired(`router_serial must be at most ${SERIAL_MAX} characters`);
  }
  if (mode !== undefined && mode !== null && mode !== 'app_apply' && mode !== 'server') {
    const message = "apply_mode must be 'app_apply' or absent";
    throw new AppError('VALIDATION_ERROR', message, { details: [{ field: 'apply_mode', message }] });
  }
  return {
    routerSerial: serial.trim(),
    applyMode: mode === 'app_apply' ? 'app_apply' : 'server',
    ...parseTransport(transport, address),
  };
}

const invalid = (field: string, message: string) =>
  new AppError('VALIDATION_ERROR', message, { details: [{ field, message }] });

const IPV4 = z.ipv4();

function parseTransport(transport: unknown, address: unknown): Pick<EnrolInput, 'transport'> {
  if (transport === undefined || transport === null) {
    if (address !== undefined && address !== null)
      throw invalid('nas_address', "nas_address goes with radius_transport 'direct' only");
    return {};
  }
  if (transport === 'relay') {
    if (address !== undefined && address !== null)
      throw invalid('nas_address', "nas_address goes with radius_transport 'direct' only");
    return { transport: { kind: 'relay' } };
  }
  if (transport !== 'direct')
    throw invalid('radius_transport', "radius_transport must be 'relay' or 'direct'");
  if (typeof address !== 'string' || !IPV4.safeParse(address).success || !usableUnicast(address)) {
    throw invalid('nas_address', 'nas_address must be the IPv4 address the router sends RADIUS from');
  }
  return { transport: { kind: 'direct', address } };
}

// A source address identifies one router: not "this host", not broadcast, not multicast.
function usableUnicast(address: string): boolean {
  const [first] = address.split('.').map(Number);
  return address !== '0.0.0.0' && first !== undefined && first !== 0 && first < 224;
}
