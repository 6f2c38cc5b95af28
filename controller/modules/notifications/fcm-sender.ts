// Push through Firebase Cloud Messaging, HTTP v1 API: one `messages:send` per device token of the
// recipient. A token FCM reports as unregistered is forgotten; a push counts as sent when at least
// one device took it (retrying would repeat it on the others).
import type { Logger } from '../../logger.js';
import type { GoogleAccessTokens } from './fcm-auth.js';
import type { HttpClient } from './http-client.js';
import { PushRejected, PushSkipped, type PushMessage, type PushSender } from './push-sender.js';

/** The recipient's registered push tokens (the notifications module's device table). */
export interface DeviceTokens {
  tokensOf(recipientId: string): Promise<string[]>;
  forget(token: string): Promise<void>;
}

export interface FcmSenderDeps {
  projectId: string;
  tokens: GoogleAccessTokens;
  http: HttpClient;
  devices: DeviceTokens;
  logger: Logger;
}

type Outcome = 'SENT' | 'UNREGISTERED' | 'REJECTED' | 'RETRY';

export const fcmEndpoint = (projectId: string): string =>
  `https://fcm.googleapis.com/v1/projects/${encodeURIComponent(projectId)}/messages:send`;

export class FcmPushSender implements PushSender {
  constructor(private readonly deps: FcmSenderDeps) {}

  async send(recipientId: string, message: PushMessage): Promise<void> {
    const devices = await this.deps.devices.tokensOf(recipientId);
    if (devices.length === 0) throw new PushSkipped('NO_DEVICE');
    const outcomes: { outcome: Outcome; detail: string }[] = [];
    for (const device of devices) {
      const result = await this.#sendOne(device, message);
      if (result.outcome === 'UNREGISTERED') await this.deps.devices.forget(device);
      outcomes.push(result);
    }
    if (outcomes.some((o) => o.outcome === 'SENT')) return;
    const retry = outcomes.find((o) => o.outcome === 'RETRY');
    if (retry) throw new Error(retry.detail);
    const rejected = outcomes.find((o) => o.outcome === 'REJECTED');
    if (rejected) throw new PushRejected(rejected.detail);
    throw new PushSkipped('NO_VALID_DEVICE');
  }

  async #sendOne(device: string, message: PushMessage): Promise<{ outcome: Outcome; detail: string }> {
    const access = await this.deps.tokens.token();
    const res = await this.deps.http({
      method: 'POST',
      url: fcmEndpoint(this.deps.projectId),
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({
        message: {
          token: device,
          notification: { title: message.title, body: message.body },
          data: message.data,
          android: { priority: 'HIGH' },
        },
      }),
    });
    if (res.status >= 200 && res.status < 300) return { outcome: 'SENT', detail: '' };
    const code = fcmErrorCode(res.body);
    const detail = `FCM ${res.status}${code ? ` ${code}` : ''}`;
    if (res.status === 404 || code === 'UNREGISTERED') return { outcome: 'UNREGISTERED', detail };
    // A stale access token: fetch a new one on the next attempt.
    if (res.status === 401) this.deps.tokens.invalidate();
    if (res.status === 429 || res.status === 401 || res.status >= 500) return { outcome: 'RETRY', detail };
    this.deps.logger.warn({ status: res.status, code }, 'FCM refused a push');
    return { outcome: 'REJECTED', detail };
  }
}

/** `error.details[].errorCode` (FcmError) or `error.status` of a Google API error body. */
function fcmErrorCode(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null; // not JSON: an error page
  }
  const error = (parsed as { error?: { status?: unknown; details?: { errorCode?: unknown }[] } } | null)
    ?.error;
  const detail = error?.details?.find((d) => typeof d?.errorCode === 'string')?.errorCode;
  if (typeof detail === 'string') return detail;
  return typeof error?.status === 'string' ? error.status : null;
}
