/** Where a router stands in its move to RADIUS (`docs/api/migration.md`, statut). */
export type MigrationStatut = 'EN_COURS' | 'ARMEMENT' | 'CONFIRMEE' | 'ECHEC' | 'REVENU_EN_LOCAL';

/**
 * One row per router slot: its current migration (replays and the return update it). The lease
 * (`run_token`, `run_until`) keeps two runs off one router, across controller instances.
 */
export interface RadiusMigrationsTable {
  allocation_id: string;
  client_id: string;
  nas_id: string | null;
  statut: MigrationStatut;
  /** Id of the last run (notifications are deduplicated per run and step). */
  run_id: string;
  retirer_local: number;
  /** The account backup a return restores: the newest of the cycle, a superset of the earlier ones. */
  backup_id: string | null;
  comptes: number | null;
  importes: number;
  retires: number;
  /** JSON text: the `etapes[]` of the last run, as answered. */
  etapes: string;
  error_code: string | null;
  started_at: string;
  updated_at: string;
  /** When the router was first configured for RADIUS: tickets sold after it live only in RADIUS. */
  switched_at: string | null;
  armed_at: string | null;
  confirmed_at: string | null;
  /** The user of the first real authentication seen by the watch job. */
  first_user: string | null;
  first_auth_at: string | null;
  returned_at: string | null;
  run_token: string | null;
  run_until: string | null;
}

/** A backup taken by step 2: the router's binary file and, apart, its hotspot profiles and users. */
export interface RadiusMigrationBackupsTable {
  id: string;
  client_id: string;
  allocation_id: string;
  router_serial: string | null;
  created_at: string;
  file_name: string;
  file_size: number;
  file_sha256: string;
  /** The binary backup as base64 text (kept for a technician; never restored by the return). */
  file_base64: string;
  /** JSON text `{profiles, users}` as the agent exported them. */
  accounts_json: string;
  /** SHA-256 of `accounts_json`: a return refuses a backup that does not match it. */
  accounts_sha256: string;
  accounts_count: number;
  profiles_count: number;
}

export interface MigrationTables {
  radius_migrations: RadiusMigrationsTable;
  radius_migration_backups: RadiusMigrationBackupsTable;
}
