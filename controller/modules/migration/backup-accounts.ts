// The account part of a migration backup: the hotspot profiles and users exactly as the agent
// exported them, kept as JSON text with its checksum. A return trusts it only when both match.
// They cross the agent link in columns (`hotspot.users.columns`), or as the objects of
// `hotspot.users.export` from an agent that predates it; both give the same accounts.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  HOTSPOT_PROFILE_SCHEMA,
  HOTSPOT_USER_SCHEMA,
  usersFromColumns,
  type CommandOutput,
} from '../../../protocol/index.js';
import type { AgentOutcome, AgentTarget } from '../../hub/index.js';
import type { MigrationDeps } from './deps.js';
import { callRouter, unknownToAgent } from './router-calls.js';

export type ExportedUser = CommandOutput<'hotspot.users.export'>['users'][number];
export type ExportedProfile = NonNullable<CommandOutput<'hotspot.users.export'>['profiles']>[number];

export interface BackupAccounts {
  profiles: ExportedProfile[];
  users: ExportedUser[];
}

// The shapes the agent exported them in: the catalogue's own schemas.
const ACCOUNTS_SCHEMA = z.object({
  profiles: z.array(HOTSPOT_PROFILE_SCHEMA),
  users: z.array(HOTSPOT_USER_SCHEMA),
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
  return parsed.success ? parsed.data : undefined;
}

/** The router's hotspot profiles and users, read through the agent. */
export async function exportAccounts(
  deps: MigrationDeps,
  target: AgentTarget,
): Promise<AgentOutcome<BackupAccounts>> {
  const columns = await callRouter(deps, target, 'hotspot.users.columns', { include_profiles: true });
  if (columns.kind === 'done') {
    return {
      kind: 'done',
      output: { profiles: columns.output.profiles ?? [], users: usersFromColumns(columns.output.users) },
    };
  }
  if (!unknownToAgent(columns)) return columns;
  const rows = await callRouter(deps, target, 'hotspot.users.export', { include_profiles: true });
  if (rows.kind !== 'done') return rows;
  return { kind: 'done', output: { profiles: rows.output.profiles ?? [], users: rows.output.users } };
}
