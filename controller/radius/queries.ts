import type { Db } from '../db/database.js';
import { ShapedStatement } from '../db/prepared-statement.js';
import type { RadiusAuthLogTable, RadiusSessionsTable } from './tables.js';

const AUTH_LOG_FIELDS = [
  'client_id',
  'nas_id',
  'username',
  'result',
  'reason',
  'calling_station_id',
  'at',
] as const;

/** Statement sizes in powers of two: any number of rows is at most one run per size. */
const POWERS_OF_TWO = (largest: number): number[] => {
  const sizes: number[] = [];
  for (let n = largest; n >= 1; n /= 2) sizes.push(n);
  return sizes;
};

/** Log rows in statements of a few fixed sizes, compiled once (a commit holds any number of rows). */
export const authLogStatement = (db: Db) =>
  new ShapedStatement(
    POWERS_OF_TWO(64),
    0,
    AUTH_LOG_FIELDS.length,
    (row: RadiusAuthLogTable) => AUTH_LOG_FIELDS.map((f) => row[f]),
    (n, s) =>
      db
        .insertInto('radius_auth_log')
        .values(
          Array.from(
            { length: n },
            (_, i) =>
              Object.fromEntries(
                AUTH_LOG_FIELDS.map((f, j) => [f, s.item(i, j)]),
              ) as unknown as RadiusAuthLogTable,
          ),
        )
        .compile(),
  );

const SESSION_FIELDS = [
  'id',
  'client_id',
  'nas_id',
  'ticket_code',
  'acct_session_id',
  'started_at',
  'updated_at',
  'stopped_at',
  'input_octets',
  'input_gigawords',
  'output_octets',
  'output_gigawords',
  'total_bytes',
  'session_time',
  'terminate_cause',
  'framed_ip',
  'calling_station_id',
] as const satisfies readonly (keyof RadiusSessionsTable)[];

/**
 * Writes session reports. A new session is inserted; a known one takes the report's counters
 * only if they are not smaller than the stored ones (counters are absolute, so a duplicate or an
 * older report changes nothing), and a stop, once recorded, stays.
 */
const upsertSessions = (db: Db, rows: RadiusSessionsTable[]) =>
  db
    .insertInto('radius_sessions')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['nas_id', 'acct_session_id']).doUpdateSet((eb) => {
        const newer = eb('excluded.total_bytes', '>=', eb.ref('radius_sessions.total_bytes'));
        const pick = <
          C extends 'input_octets' | 'input_gigawords' | 'output_octets' | 'output_gigawords' | 'total_bytes',
        >(
          column: C,
        ) =>
          eb
            .case()
            .when(newer)
            .then(eb.ref(`excluded.${column}`))
            .else(eb.ref(`radius_sessions.${column}`))
            .end();
        return {
          input_octets: pick('input_octets'),
          input_gigawords: pick('input_gigawords'),
          output_octets: pick('output_octets'),
          output_gigawords: pick('output_gigawords'),
          total_bytes: pick('total_bytes'),
          session_time: eb
            .case()
            .when('excluded.session_time', '>', eb.ref('radius_sessions.session_time'))
            .then(eb.ref('excluded.session_time'))
            .else(eb.ref('radius_sessions.session_time'))
            .end(),
          updated_at: eb.ref('excluded.updated_at'),
          stopped_at: eb.fn.coalesce('radius_sessions.stopped_at', 'excluded.stopped_at'),
          terminate_cause: eb.fn.coalesce('radius_sessions.terminate_cause', 'excluded.terminate_cause'),
          framed_ip: eb.fn.coalesce('excluded.framed_ip', 'radius_sessions.framed_ip'),
          calling_station_id: eb.fn.coalesce(
            'excluded.calling_station_id',
            'radius_sessions.calling_station_id',
          ),
        };
      }),
    );

/** The accounting statements of a group commit, compiled once in a few fixed sizes. */
export class SessionStatements {
  readonly #upsert: ShapedStatement<RadiusSessionsTable>;
  readonly #usage: ShapedStatement<string, { ticket_code: string; bytes: unknown; seconds: unknown }>;

  constructor(db: Db) {
    // Rows must be of distinct sessions: one upsert may not touch a row twice on PostgreSQL.
    this.#upsert = new ShapedStatement(
      POWERS_OF_TWO(16),
      0,
      SESSION_FIELDS.length,
      (row: RadiusSessionsTable) => SESSION_FIELDS.map((f) => row[f]),
      (n, s) =>
        upsertSessions(
          db,
          Array.from(
            { length: n },
            (_, i) =>
              Object.fromEntries(
                SESSION_FIELDS.map((f, j) => [f, s.item(i, j)]),
              ) as unknown as RadiusSessionsTable,
          ),
        ).compile(),
    );
    // Usage of tickets summed over all their sessions (open and closed). Fixed: client_id. Item: code.
    this.#usage = new ShapedStatement(
      POWERS_OF_TWO(16),
      1,
      1,
      (code: string) => [code],
      (n, s) =>
        db
          .selectFrom('radius_sessions')
          .select((eb) => [
            'ticket_code',
            eb.fn.sum<number>('total_bytes').as('bytes'),
            eb.fn.sum<number>('session_time').as('seconds'),
          ])
          .where('client_id', '=', s.fixed(0))
          .where(
            'ticket_code',
            'in',
            Array.from({ length: n }, (_, i) => s.item(i, 0)),
          )
          .groupBy('ticket_code')
          .compile(),
    );
  }

  async upsert(db: Db, rows: RadiusSessionsTable[]): Promise<void> {
    await this.#upsert.run(db, rows);
  }

  async usage(
    db: Db,
    clientId: string,
    codes: string[],
  ): Promise<{ code: string; bytes: number; seconds: number }[]> {
    const rows = await this.#usage.run(db, codes, [clientId]);
    return rows.map((r) => ({
      code: r.ticket_code,
      bytes: Number(r.bytes ?? 0),
      seconds: Number(r.seconds ?? 0),
    }));
  }
}

/** Accounting-On/Off: the NAS restarted, so its open sessions ended. */
export const closeNasSessions = (db: Db, clientId: string, nasId: string, at: string) =>
  db
    .updateTable('radius_sessions')
    .set({ stopped_at: at, terminate_cause: 'NAS-Reboot', updated_at: at })
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('stopped_at', 'is', null)
    .execute();

export const tenantsWithStaleSessions = async (db: Db, cutoff: string): Promise<string[]> =>
  (
    await db
      .selectFrom('radius_sessions')
      .select('client_id')
      .distinct()
      .where('stopped_at', 'is', null)
      .where('updated_at', '<', cutoff)
      .execute()
  ).map((r) => r.client_id);

/** Sessions silent since before the cutoff end where they were last heard of, usage kept. */
export const closeStaleSessions = async (db: Db, clientId: string, cutoff: string): Promise<number> =>
  Number(
    (
      await db
        .updateTable('radius_sessions')
        .set((eb) => ({ stopped_at: eb.ref('updated_at'), terminate_cause: 'Lost-Service' }))
        .where('client_id', '=', clientId)
        .where('stopped_at', 'is', null)
        .where('updated_at', '<', cutoff)
        .executeTakeFirst()
    ).numUpdatedRows,
  );

/** Open sessions (no Stop yet) per NAS of a client; NAS without any are absent. */
export const openSessionsByNas = async (db: Db, clientId: string, nasIds: readonly string[]) => {
  const counts = new Map<string, number>();
  if (nasIds.length === 0) return counts;
  const rows = await db
    .selectFrom('radius_sessions')
    .select((eb) => ['nas_id', eb.fn.countAll<number>().as('open')])
    .where('client_id', '=', clientId)
    .where('stopped_at', 'is', null)
    .where('nas_id', 'in', nasIds)
    .groupBy('nas_id')
    .execute();
  for (const row of rows) counts.set(row.nas_id, Number(row.open));
  return counts;
};

/** The first accepted authentication through a NAS at or after `since` (the migration watch's proof). */
export const firstAcceptSince = (db: Db, clientId: string, nasId: string, since: string) =>
  db
    .selectFrom('radius_auth_log')
    .select(['username', 'at'])
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('result', '=', 'ACCEPT')
    .where('at', '>=', since)
    .orderBy('at', 'asc')
    .limit(1)
    .executeTakeFirst();

/** Bytes per (user, framed address) of a NAS's sessions updated since `since`. */
export async function userVolumesSince(db: Db, clientId: string, nasId: string, since: string) {
  const rows = await db
    .selectFrom('radius_sessions')
    .select(['ticket_code', 'framed_ip', (eb) => eb.fn.sum<number>('total_bytes').as('bytes')])
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('updated_at', '>=', since)
    .where('framed_ip', 'is not', null)
    .groupBy(['ticket_code', 'framed_ip'])
    .execute();
  return rows.map((r) => ({ username: r.ticket_code, address: r.framed_ip!, bytes: Number(r.bytes) }));
}

/** The newest open session of a user on a NAS (of this Acct-Session-Id when given). */
export function openSessionOf(
  db: Db,
  clientId: string,
  nasId: string,
  username: string,
  acctSessionId: string | undefined,
) {
  let query = db
    .selectFrom('radius_sessions')
    .select(['acct_session_id', 'framed_ip', 'calling_station_id', 'started_at'])
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('ticket_code', '=', username)
    .where('stopped_at', 'is', null);
  if (acctSessionId !== undefined) query = query.where('acct_session_id', '=', acctSessionId);
  return query.orderBy('started_at', 'desc').limit(1).executeTakeFirst();
}

/** When the session stopped (null while open), or undefined when no such session is recorded. */
export const sessionStoppedAt = (db: Db, clientId: string, nasId: string, acctSessionId: string) =>
  db
    .selectFrom('radius_sessions')
    .select(['stopped_at', 'terminate_cause'])
    .where('client_id', '=', clientId)
    .where('nas_id', '=', nasId)
    .where('acct_session_id', '=', acctSessionId)
    .executeTakeFirst();
