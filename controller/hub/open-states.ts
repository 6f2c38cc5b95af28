// The condition "the command is open", written with literal states: the queue's partial indexes
// are declared with it, and a query can use such an index only when its own WHERE holds the very
// same term (SQLite matches the term as written, and neither database proves an index's condition
// from bound parameters).
import { sql } from 'kysely';
import { OPEN_COMMAND_STATES } from './tables.js';

export const OPEN_STATES_SQL = sql<boolean>`state in (${sql.join(OPEN_COMMAND_STATES.map((s) => sql.lit(s)))})`;
