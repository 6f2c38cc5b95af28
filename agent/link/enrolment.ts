import type { Identity } from '../state/identity-store.js';
import type { KeyPair, MessageBody } from '../../protocol/index.js';
import { normaliseControllerUrl } from './controller-url.js';
import { isoTime } from '../../protocol/index.js';

/** The identity to save after a successful enrol: this key pair, the ids and the controller key to pin. */
export function identityFromWelcome(
  welcome: MessageBody<'welcome'>,
  keyPair: KeyPair,
  controllerUrl: string,
  controllerKey: string,
  now: Date,
): Identity {
  return {
    version: 1,
    agent_id: welcome.agent_id,
    allocation_id: welcome.allocation_id,
    controller_url: normaliseControllerUrl(controllerUrl),
    controller_key: controllerKey,
    agent_public_key: keyPair.publicKey,
    agent_secret_key: keyPair.secretKey,
    enrolled_at: isoTime(now),
  };
}
