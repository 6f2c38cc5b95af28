// Chooses the push sender from the configuration: FCM HTTP v1 when a service account key is given,
// else the logging sender. A key that cannot be used stops the start, rather than losing pushes.
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../logger.js';
import { FcmConfigError, GoogleAccessTokens, loadServiceAccount } from './fcm-auth.js';
import { FcmPushSender, type DeviceTokens } from './fcm-sender.js';
import { fetchHttpClient, type HttpClient } from './http-client.js';
import { LoggingPushSender, type PushSender } from './push-sender.js';

export interface PushSetup {
  fcmServiceAccount?: string | undefined;
  fcmProjectId?: string | undefined;
  clock: Clock;
  logger: Logger;
  devices: DeviceTokens;
  /** Tests pass a fake; the global fetch otherwise. */
  http?: HttpClient | undefined;
}

export async function createPushSender(setup: PushSetup): Promise<PushSender> {
  if (!setup.fcmServiceAccount) {
    if (setup.fcmProjectId) {
      throw new FcmConfigError('TICKETNET_FCM_PROJECT_ID is set without TICKETNET_FCM_SERVICE_ACCOUNT');
    }
    return new LoggingPushSender(setup.logger);
  }
  const account = await loadServiceAccount(setup.fcmServiceAccount);
  const projectId = setup.fcmProjectId ?? account.project_id;
  if (!projectId) {
    throw new FcmConfigError('set TICKETNET_FCM_PROJECT_ID: the service account names no project_id');
  }
  const http = setup.http ?? fetchHttpClient();
  setup.logger.info({ projectId, account: account.client_email }, 'push through FCM');
  return new FcmPushSender({
    projectId,
    tokens: new GoogleAccessTokens(account, http, setup.clock),
    http,
    devices: setup.devices,
    logger: setup.logger,
  });
}
