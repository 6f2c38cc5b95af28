// The statements RADIUS runs on the ticket store for every request or group commit: compiled
// once per database by Kysely (correct SQL for either dialect), then only run.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { PreparedStatement, ShapedStatement, slot, type ShapeSlots } from '../../db/prepared-statement.js';
import type { TicketStatus, TicketsTables } from './tables.js';
import type { AuthTicket } from './ticket-rules.js';

export interface FirstUse {
  code: string;
  at: string;
  nasId: string;
  expiresAt: string | null;
}

export interface TicketUsage {
  code: string;
  bytes: number;
  seconds: number;
}

/**
 * The sizes (items per statement) the RADIUS statements are compiled in; a longer list runs as
 * several of them. RADIUS pads its lists to these sizes, so it reads them from here.
 */
export const TICKET_STATEMENT_SIZES = [16, 4, 1] as const;

const AUTH_COLUMNS = [
  't.code',
  't.password',
  't.status',
  't.used_at',
  't.expires_at',
  't.bytes_used',
  't.seconds_used',
  'p.rate_limit',
  'p.validity_seconds',
] as const;

/** `CASE code WHEN <code 0> THEN <field f of item 0> … END` over the n items of a shaped statement. */
const perCode = (n: number, s: ShapeSlots, field: number) =>
  sql`case ${sql.ref('radius_tickets.code')} ${sql.join(
    Array.from({ length: n }, (_, i) => sql`when ${s.item(i, 0)} then ${s.item(i, field)}`),
    sql` `,
  )} end`;

const codesOf = (n: number, s: ShapeSlots) => Array.from({ length: n }, (_, i) => s.item(i, 0));

/** The ticket's totals reached its effective data or time limit (its own, else its profile's). */
const quotaReached = (eb: ExpressionBuilder<TicketsTables, 'radius_tickets'>) =>
  eb.exists(
    eb
      .selectFrom('radius_profiles as p')
      .select('p.id')
      .whereRef('p.id', '=', 'radius_tickets.profile_id')
      .where((e) => {
        const data = e.fn.coalesce('radius_tickets.data_limit_bytes', 'p.data_limit_bytes');
        const time = e.fn.coalesce('radius_tickets.time_limit_seconds', 'p.time_limit_seconds');
        return e.or([
          e.and([e(data, 'is not', null), e('radius_tickets.bytes_used', '>=', data)]),
          e.and([e(time, 'is not', null), e('radius_tickets.seconds_used', '>=', time)]),
        ]);
      }),
  );

/** The statements RADIUS runs for every request or group commit, compiled once per database. */
export class TicketStatements {
  readonly #authMany: ShapedStatement<string, AuthTicket>;
  readonly #firstUse: ShapedStatement<FirstUse>;
  readonly #exhaust: PreparedStatement<unknown>;
  readonly #usage: ShapedStatement<TicketUsage>;
  readonly #usageStatus: ShapedStatement<string>;

  constructor(db: Db) {
    // The tickets and limits of the User-Names of requests that arrived together. Fixed: client_id. Item: code.
    this.#authMany = new ShapedStatement(
      TICKET_STATEMENT_SIZES,
      1,
      1,
      (code: string) => [code],
      (n, s) =>
        db
          .selectFrom('radius_tickets as t')
          .innerJoin('radius_profiles as p', (j) =>
            j.onRef('p.id', '=', 't.profile_id').onRef('p.client_id', '=', 't.client_id'),
          )
          .select(AUTH_COLUMNS)
          // The effective quotas: the ticket's own limit, else its profile's (null: unlimited).
          .select((eb) => [
            eb.fn.coalesce('t.data_limit_bytes', 'p.data_limit_bytes').as('data_limit_bytes'),
            eb.fn.coalesce('t.time_limit_seconds', 'p.time_limit_seconds').as('time_limit_seconds'),
          ])
          .where('t.client_id', '=', s.fixed(0))
          .where('t.code', 'in', codesOf(n, s))
          .compile(),
    );
    // ACTIVE → USED, conditional on ACTIVE, so two first authentications at once (or on two
    // instances) set it once. The status is tested through coalesce() so that it cannot be an index
    // condition: PostgreSQL without statistics (before autovacuum's first ANALYZE of a big batch)
    // would otherwise pick the list index on (client_id, …, status) and walk every ACTIVE ticket of
    // the tenant. Fixed: client_id. Item: code, used_at, first_nas_id, expires_at.
    this.#firstUse = new ShapedStatement(
      TICKET_STATEMENT_SIZES,
      1,
      4,
      (f: FirstUse) => [f.code, f.at, f.nasId, f.expiresAt],
      (n, s) =>
        db
          .updateTable('radius_tickets')
          .set({
            status: 'USED',
            used_at: sql<string>`coalesce(${sql.ref('used_at')}, ${perCode(n, s, 1)})`,
            first_nas_id: sql<string>`coalesce(${sql.ref('first_nas_id')}, ${perCode(n, s, 2)})`,
            expires_at: sql<string>`coalesce(${sql.ref('expires_at')}, ${perCode(n, s, 3)})`,
          })
          .where('client_id', '=', s.fixed(0))
          .where('code', 'in', codesOf(n, s))
          .where((eb) => eb(eb.fn.coalesce('status', eb.val('')), '=', 'ACTIVE'))
          .compile(),
    );
    this.#exhaust = new PreparedStatement(
      db
        .updateTable('radius_tickets')
        .set({ status: 'EXHAUSTED' })
        .where('client_id', '=', slot(0))
        .where('code', '=', slot(1))
        .where('status', '=', 'USED')
        .compile(),
    );
    // Usage totals from accounting, on top of what the ticket had consumed before (a migrated
    // router's user). The status is left out of this SET: an index entry is rewritten whenever its
    // column is assigned, even to the value it had, and the list indexes end with the status.
    // Fixed: client_id, used_at, first_nas_id. Item: code, bytes, seconds.
    this.#usage = new ShapedStatement(
      TICKET_STATEMENT_SIZES,
      3,
      3,
      (u: TicketUsage) => [u.code, u.bytes, u.seconds],
      (n, s) =>
        db
          .updateTable('radius_tickets')
          .set((eb) => ({
            bytes_used: sql<number>`radius_tickets.bytes_base + cast(${perCode(n, s, 1)} as bigint)`,
            seconds_used: sql<number>`radius_tickets.seconds_base + cast(${perCode(n, s, 2)} as bigint)`,
            used_at: eb.fn.coalesce('used_at', eb.val(s.fixed(1))),
            first_nas_id: eb.fn.coalesce('first_nas_id', eb.val(s.fixed(2))),
          }))
          .where('client_id', '=', s.fixed(0))
          .where('code', 'in', codesOf(n, s))
          .compile(),
    );
    // The status those totals imply, written only where it changes: a ticket seen first through
    // accounting (authenticated elsewhere) becomes USED; one whose totals reached its effective
    // limit (its own, else its profile's) becomes EXHAUSTED. Fixed: client_id. Item: code.
    this.#usageStatus = new ShapedStatement(
      TICKET_STATEMENT_SIZES,
      1,
      1,
      (code: string) => [code],
      (n, s) =>
        db
          .updateTable('radius_tickets')
          .set((eb) => ({
            status: eb
              .case()
              .when(quotaReached(eb))
              .then(eb.val<TicketStatus>('EXHAUSTED'))
              .else(eb.val<TicketStatus>('USED'))
              .end(),
          }))
          .where('client_id', '=', s.fixed(0))
          .where('code', 'in', codesOf(n, s))
          .where((eb) =>
            eb.or([eb('status', '=', 'ACTIVE'), eb.and([eb('status', '=', 'USED'), quotaReached(eb)])]),
          )
          .compile(),
    );
  }

  /** Tickets of several User-Names (distinct) in one go; absent ones are missing from the result. */
  findManyForAuth(db: Db, clientId: string, codes: readonly string[]): Promise<AuthTicket[]> {
    return this.#authMany.run(db, codes, [clientId]);
  }

  async markFirstUse(db: Db, clientId: string, uses: readonly FirstUse[]): Promise<void> {
    await this.#firstUse.run(db, uses, [clientId]);
  }

  async markExhausted(db: Db, clientId: string, code: string): Promise<void> {
    await this.#exhaust.run(db, [clientId, code]);
  }

  async recordUsage(db: Db, clientId: string, nasId: string, at: string, usages: readonly TicketUsage[]) {
    await this.#usage.run(db, usages, [clientId, at, nasId]);
    await this.#usageStatus.run(
      db,
      usages.map((u) => u.code),
      [clientId],
    );
  }
}
