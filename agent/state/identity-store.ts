// The agent's identity: its Ed25519 key pair and what the controller told it at enrolment.
import { z } from 'zod';
import { derivePublicKey, isoTimeSchema, publicKeySchema, uuidSchema } from '../../protocol/index.js';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';

const IDENTITY_SCHEMA = z.object({
  version: z.literal(1),
  agent_id: uuidSchema,
  allocation_id: uuidSchema,
  /** Base URL the agent enrolled with (http(s) or ws(s)); the link path is appended. */
  controller_url: z.string().min(1),
  /** Pinned at enrolment; every later challenge must be signed by it. */
  controller_key: publicKeySchema,
  agent_public_key: publicKeySchema,
  agent_secret_key: z.string().min(1),
  enrolled_at: isoTimeSchema,
});

/** Contents of identity.json. */
export type Identity = z.output<typeof IDENTITY_SCHEMA>;

/** identity.json is unreadable or inconsistent: the agent must not guess, a technician must look. */
export class IdentityFileError extends Error {
  override readonly name = 'IdentityFileError';
}

/** Reads and writes identity.json (mode 0600, atomic). */
export class IdentityStore {
  constructor(readonly path: string) {}

  /** The saved identity, or undefined when the agent has never enrolled. */
  async load(): Promise<Identity | undefined> {
    const text = await readTextIfExists(this.path);
    if (text === undefined) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new IdentityFileError(`${this.path} is not JSON`, { cause: err });
    }
    const parsed = IDENTITY_SCHEMA.safeParse(json);
    if (!parsed.success) throw new IdentityFileError(`${this.path} is not a valid agent identity`);
    let derived: string;
    try {
      derived = derivePublicKey(parsed.data.agent_secret_key);
    } catch (err) {
      throw new IdentityFileError(`${this.path} holds a malformed secret key`, { cause: err });
    }
    // A hand-edited or half-restored file would otherwise fail later as an opaque AGENT_UNKNOWN.
    if (derived !== parsed.data.agent_public_key) {
      throw new IdentityFileError(`${this.path}: the secret key does not match the public key`);
    }
    return parsed.data;
  }

  /** Saves the identity durably, readable by the owner only. */
  async save(identity: Identity): Promise<void> {
    const checked = IDENTITY_SCHEMA.parse(identity);
    await writeFileAtomic(this.path, `${JSON.stringify(checked, null, 2)}\n`, { mode: 0o600 });
  }
}
