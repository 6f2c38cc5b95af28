// The account part of a migration backup: the hotspot profiles and users exactly as the agent
// exported them, kept as JSON text with its checksum. A return trusts it only when both match.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CommandOutput } from '../../../protocol/index.js';

export type ExportedUser = CommandOutput<'hotspot.users.export'>['users'][number];
export type ExportedProfile = NonNullable<CommandOutput<'hotspot.users.export'>['profiles']>[number];

export interface BackupAccounts {
  profiles: ExportedProfile[];
  users: ExportedUser[];
}

const count = z.int().min(0);
const ACCOUNTS_SCHEMA = z.object({
  profiles: z.array(
    z.object({
      name: z.string().min(1),
      rate_limit: z.string().optional(),
      shared_users: z.int().min(1).optional(),
      session_timeout: count.optional(),
    }),
  ),
  users: z.array(
    z.object({
      name: z.string().min(1),
      password: z.string().optional(),
      profile: z.string().min(1),
      comment: z.string().optional(),
      limit_uptime: count.optional(),
      limit_bytes_total: count.optional(),
      disabled: z.boolean(),
      uptime_seconds: count.optional(),
      bytes_in: count.optional(),
      bytes_out: count.optional(),
    }),
  ),
});

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export function encodeAccounts(accounts: BackupAccounts): { json: string; sha256: string } {
  const json = JSON.stringify({ profiles: accounts.profiles, users: accounts.users });
  return { json, sha256: sha256Hex(json) };
}

/** The stored accounts, or undefined when the text is not what was stored or not readable. */
export function decodeAccounts(json: string, sha256: string): BackupAccounts | undefined {
  if (sha256Hex(json) !== sha256) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = ACCOUNTS_SCHEMA.safeParse(value);
  return parsed.success ? (parsed.data as BackupAccounts) : undefined;
}
