// The controller's Ed25519 key pair: agents pin its public half at enrolment and refuse any
// challenge it did not sign. Generated once into the data directory; every instance serving the
// same agents must read the same file.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { derivePublicKey, generateKeyPair, ProtocolError, type KeyPair } from '../../protocol/index.js';
import { loadOrCreateSecret } from '../secrets.js';

export const CONTROLLER_KEY_FILE = 'controller-key.json';

export class ControllerIdentityError extends Error {}

/** Reads the key pair from `<dataDir>/controller-key.json`, creating it on first start. */
export async function loadControllerIdentity(dataDir: string): Promise<KeyPair> {
  const where = join(dataDir, CONTROLLER_KEY_FILE);
  for (let attempt = 1; ; attempt++) {
    const text = loadOrCreateSecret(dataDir, CONTROLLER_KEY_FILE, () => JSON.stringify(generateKeyPair()));
    let pair: Partial<KeyPair>;
    try {
      pair = JSON.parse(text) as Partial<KeyPair>;
    } catch (err) {
      // Another instance starting on the same data directory may have created the file and not
      // yet written it: read again shortly before calling the file broken.
      if (attempt < 5) {
        await sleep(50);
        continue;
      }
      throw new ControllerIdentityError(`${where} is not JSON`, { cause: err });
    }
    if (matches(pair)) return { publicKey: pair.publicKey, secretKey: pair.secretKey };
    // A file whose halves disagree would make every agent refuse the controller; stop at start instead.
    throw new ControllerIdentityError(`${where} does not hold a matching Ed25519 key pair`);
  }
}

function matches(pair: Partial<KeyPair>): pair is KeyPair {
  try {
    return typeof pair.secretKey === 'string' && derivePublicKey(pair.secretKey) === pair.publicKey;
  } catch (err) {
    if (err instanceof ProtocolError) return false;
    throw err;
  }
}
