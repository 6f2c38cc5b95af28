// The refusals of the NAS routes, built in one place so their bodies keep the shapes
// docs/api/nas.md gives. None of them ever carries the RADIUS secret.
import { AppError } from '../../core/app-error.js';
import type { AllocationView } from '../allocations/index.js';
import { provisioningBlock } from './nas-view.js';
import type { NasDeploymentsTable, NasTable } from './tables.js';

/** Retry-After of a 409 DEPLOYMENT_IN_PROGRESS: the client waits this long, then verifies. */
export const RETRY_AFTER_SECONDS = 15;

export const nasNotFound = (): AppError => new AppError('NAS_NOT_FOUND', 'No active NAS with this id');

/** A retry that hit the lock of the enrolment still deploying this router. */
export function deploymentInProgress(
  lock: Pick<NasDeploymentsTable, 'started_at'>,
  nas: Pick<NasTable, 'id' | 'nasname' | 'shortname' | 'status'>,
): AppError {
  return new AppError(
    'DEPLOYMENT_IN_PROGRESS',
    `An enrolment of this router is being deployed; wait ${RETRY_AFTER_SECONDS} s, then call the verify endpoint`,
    {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      details: {
        nas_id: nas.id,
        started_at: lock.started_at,
        retry_after_seconds: RETRY_AFTER_SECONDS,
        deployment: { status: 'DEPLOYING', started_at: lock.started_at },
      },
      extra: {
        idempotent: true,
        nas: {
          id: nas.id,
          nasname: nas.nasname,
          shortname: nas.shortname,
          status: nas.status,
          provisioning: provisioningBlock(nas),
        },
      },
    },
  );
}

/**
 * The router's agent link is down, or no allocation of the tenant has an agent that reported this
 * serial (nothing links the router to the tenant yet: `reason` ROUTER_NOT_LINKED).
 */
export function tunnelNotConnected(routerSerial: string, allocation: AllocationView | undefined): AppError {
  return new AppError(
    'VPN_TUNNEL_NOT_CONNECTED',
    allocation
      ? "The router's agent link is not connected; enrol again once it is"
      : 'No router with this serial is linked to your account through its agent',
    {
      details: {
        router_serial: routerSerial,
        allocation_id: allocation?.id ?? null,
        tunnel_status: 'DISCONNECTED',
        tunnel_last_seen_at: allocation?.last_seen_at ?? null,
        reason: allocation ? 'TUNNEL_DISCONNECTED' : 'ROUTER_NOT_LINKED',
      },
    },
  );
}

/** A direct (VPN) NAS needs the controller's UDP RADIUS listening at an address routers reach. */
export const directRadiusOff = (): AppError =>
  new AppError(
    'RADIUS_DIRECT_UNAVAILABLE',
    'Direct UDP RADIUS is not enabled on this controller; enrol the router through its agent instead',
  );

/** Another live NAS (of any tenant) is known by this source address: packets could not tell them apart. */
export const nasAddressTaken = (address: string): AppError =>
  new AppError('NAS_ADDRESS_TAKEN', `Another NAS is already registered with the address ${address}`, {
    details: [{ field: 'nas_address', message: 'already registered for another router' }],
  });

export type DeployStep = 'SYNC' | 'APPLY';

export function provisionError(
  nasId: string,
  step: DeployStep,
  fault: { code: string; message: string },
): AppError {
  return new AppError(
    'RADIUS_PROVISION_ERROR',
    `The router refused the RADIUS provisioning: ${fault.message}`,
    {
      details: { nas_id: nasId, step, fault, rolled_back: true },
    },
  );
}

export function bridgeUnavailable(nasId: string, step: DeployStep, waitedMs: number): AppError {
  return new AppError(
    'RADIUS_BRIDGE_UNAVAILABLE',
    'The router did not answer through its agent in time; the enrolment was rolled back, retry later',
    { details: { nas_id: nasId, step, waited_ms: waitedMs, rolled_back: true } },
  );
}
