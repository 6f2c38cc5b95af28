// Hotspot users in columns: one array per field, entry i of every array being user i. The export
// of a whole router travels this way (`hotspot.users.columns`) because the objects' keys, repeated
// for each of 15,000 users, cost more on the link than the values once compressed, and a column of
// like values (all the profiles, all the byte counters) compresses better than interleaved ones.
// A voucher's password is most often its code: the column says so (`true`) instead of repeating it.
// The rows are rebuilt exactly as the export gives them: same fields, absent ones left out.
import { z } from 'zod';
import type { HotspotUser } from './commands.js';
import { label } from './fields.js';

/** Most users a column export carries (as many as `hotspot.users.names` lists). */
export const HOTSPOT_USER_COLUMNS_MAX = 100_000;

const count = z.int().min(0);
const column = <T extends z.ZodType>(item: T) => z.array(item).max(HOTSPOT_USER_COLUMNS_MAX);

/** The users of `hotspot.users.columns`; every column has one entry per user. */
function columnsSchema() {
  return z
    .object({
      name: column(label()),
      /** null: no password; true: the password is the name itself (voucher mode). */
      password: column(z.union([z.string().max(200), z.null(), z.literal(true)])),
      profile: column(label()),
      comment: column(z.string().max(1000).nullable()),
      limit_uptime: column(count.nullable()),
      limit_bytes_total: column(count.nullable()),
      disabled: column(z.boolean()),
      uptime_seconds: column(count.nullable()),
      bytes_in: column(count.nullable()),
      bytes_out: column(count.nullable()),
    })
    .superRefine((columns, ctx) => {
      const rows = columns.name.length;
      for (const [key, values] of Object.entries(columns)) {
        if (values.length !== rows) {
          ctx.addIssue({ code: 'custom', path: [key], message: `has ${values.length} entries, not ${rows}` });
        }
      }
    });
}

let built: ReturnType<typeof columnsSchema> | undefined;

/** The schema of the users of `hotspot.users.columns`, built on first use (see the catalogue). */
export const hotspotUserColumnsSchema = (): ReturnType<typeof columnsSchema> => (built ??= columnsSchema());

export type HotspotUserColumns = z.output<ReturnType<typeof columnsSchema>>;

// Optional number fields, in the order the export writes them.
const NUMBERS = ['limit_uptime', 'limit_bytes_total', 'uptime_seconds', 'bytes_in', 'bytes_out'] as const;

/** Users (as the export gives them) into columns. */
export function usersToColumns(users: readonly HotspotUser[]): HotspotUserColumns {
  const columns: HotspotUserColumns = {
    name: [],
    password: [],
    profile: [],
    comment: [],
    limit_uptime: [],
    limit_bytes_total: [],
    disabled: [],
    uptime_seconds: [],
    bytes_in: [],
    bytes_out: [],
  };
  for (const u of users) {
    columns.name.push(u.name);
    columns.password.push(u.password === undefined ? null : u.password === u.name ? true : u.password);
    columns.profile.push(u.profile);
    columns.comment.push(u.comment ?? null);
    columns.disabled.push(u.disabled);
    for (const key of NUMBERS) columns[key].push(u[key] ?? null);
  }
  return columns;
}

// The catalogue's field order: the order a checked export has its keys in.
const ORDER = [
  'name',
  'password',
  'profile',
  'comment',
  'limit_uptime',
  'limit_bytes_total',
  'disabled',
  'uptime_seconds',
  'bytes_in',
  'bytes_out',
] as const;

/** Columns (checked by the schema: all of one length) back into users, field for field. */
export function usersFromColumns(columns: HotspotUserColumns): HotspotUser[] {
  const users: HotspotUser[] = [];
  for (let i = 0; i < columns.name.length; i++) {
    const user: Record<string, unknown> = {};
    for (const key of ORDER) {
      const value = columns[key][i];
      if (value === true && key === 'password') user.password = columns.name[i];
      else if (value !== null && value !== undefined) user[key] = value;
    }
    users.push(user as HotspotUser);
  }
  return users;
}
