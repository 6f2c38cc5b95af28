import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeBase64Strict } from './base64.js';
import { describeIssues } from './describe-issues.js';
import type { Fault } from './fault-codes.js';
import { label } from './fields.js';
import { hotspotUserColumnsSchema } from './hotspot-user-columns.js';

/** One entry of the command catalogue. */
export interface CommandSpec {
  /** Schema of `command.params`. Strict: an unknown param is refused, as the agent could not honour it. */
  readonly params: z.ZodType;
  /** Schema of `result.output` when `status` is `DONE`; extra fields are dropped for forward compatibility. */
  readonly output: z.ZodType;
  /** Deadline the controller gives the command when the caller does not choose one. */
  readonly defaultTimeoutSeconds: number;
  /**
   * `read`: the router's configuration and users are left as they are, so a client may run it
   * through the generic command route. `change`: it alters the router, so only the module whose
   * rules guard it (NAS enrolment, migration, return) sends it.
   */
  readonly effect: CommandEffect;
  /**
   * Top-level params that carry a secret (a script holding the NAS secret, hotspot passwords). Both
   * ends keep them only while the command is open: once it is final they are replaced by
   * `REDACTED` (the result is what is kept).
   */
  readonly secretParams?: readonly string[];
}

/** What a command does to the router (see `CommandSpec.effect`). */
export type CommandEffect = 'read' | 'change';

/** What a secret param of a final command is replaced with. */
export const REDACTED = '[redacted]';

const count = z.int().min(0);

/** Output of `router.facts`; `enrol.facts` carries any subset of it. */
export const ROUTER_FACTS_SCHEMA = z.object({
  /** RouterBOARD serial number (the agent sends the licence software id on a CHR, which has none). */
  serial: label(64),
  identity: z.string().max(200),
  model: label(),
  /** Bare version, e.g. `7.15.3` or `6.49.10`, without the channel suffix. */
  routeros_version: label(64),
  /** RouterOS architecture name (`arm`, `arm64`, `mipsbe`, `mmips`, `tile`, `x86_64`, …). */
  architecture: label(64),
  board_name: label(),
  free_hdd_bytes: count,
  total_hdd_bytes: count,
  uptime_seconds: count,
});

/** Name of the hotspot user RouterOS creates itself: never a voucher, never removed nor restored. */
export const BUILT_IN_HOTSPOT_USER = 'default-trial';

/** Most users one `hotspot.users.restore` carries: the return to local accounts restores batches of 40. */
export const HOTSPOT_USERS_RESTORE_BATCH = 40;

/** Most names one `hotspot.users.remove` carries. */
export const HOTSPOT_USERS_REMOVE_MAX = 1000;

const HOTSPOT_USER_FIELDS = {
  name: label(),
  password: z.string().max(200).optional(),
  profile: label(),
  comment: z.string().max(1000).optional(),
  /** RouterOS `limit-uptime` converted by the agent to seconds. */
  limit_uptime: count.optional(),
  /** RouterOS `limit-bytes-total` in bytes. */
  limit_bytes_total: count.optional(),
  disabled: z.boolean(),
  /** RouterOS `uptime` of the user (time already consumed) in seconds; the agent leaves it out when 0. */
  uptime_seconds: count.optional(),
  /** RouterOS `bytes-in` counter of the user; the agent leaves it out when 0. */
  bytes_in: count.optional(),
  /** RouterOS `bytes-out` counter of the user; the agent leaves it out when 0. */
  bytes_out: count.optional(),
};

/** A hotspot user as exported and restored (the migration's account backup keeps this shape). */
export const HOTSPOT_USER_SCHEMA = z.object(HOTSPOT_USER_FIELDS);

/** A hotspot user as `hotspot.users.export` gives it and `hotspot.users.restore` takes it. */
export type HotspotUser = z.output<typeof HOTSPOT_USER_SCHEMA>;

const HOTSPOT_PROFILE_FIELDS = {
  name: label(),
  /** RouterOS `rate-limit` text as configured, e.g. `2M/4M`. */
  rate_limit: z.string().max(200).optional(),
  shared_users: z.int().min(1).optional(),
  /** RouterOS `session-timeout` converted to seconds. */
  session_timeout: count.optional(),
};

/** A hotspot user profile as exported and restored. */
export const HOTSPOT_PROFILE_SCHEMA = z.object(HOTSPOT_PROFILE_FIELDS);

/** A hotspot user profile as `hotspot.users.export` gives it and `hotspot.profiles.restore` takes it. */
export type HotspotProfile = z.output<typeof HOTSPOT_PROFILE_SCHEMA>;

/** The value of `build`, made on the first call and kept. */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/** Refuses a list in which two entries have the same name (case-sensitive, as RouterOS compares them). */
function refuseDuplicateNames(names: readonly string[], ctx: z.core.$RefinementCtx): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate name ${name}` });
    seen.add(name);
  });
}

/** Output of both restore commands. */
const restoreOutputSchema = once(() =>
  z.object({
    /** Entries that did not exist and were added. */
    added: count,
    /** Entries that existed (same name) and were set to the given values. */
    updated: count,
  }),
);

const backupOutputSchema = once(() =>
  z
    .object({
      file_name: label(255),
      size: count,
      /** Lowercase hex SHA-256 of the decoded content. */
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      content_base64: z.string(),
    })
    // The controller keeps backups for restores, so a truncated or altered file must be caught here.
    .superRefine((backup, ctx) => {
      const bytes = decodeBase64Strict(backup.content_base64);
      if (bytes === undefined) {
        ctx.addIssue({ code: 'custom', path: ['content_base64'], message: 'not standard padded base64' });
        return;
      }
      if (bytes.length !== backup.size) {
        ctx.addIssue({ code: 'custom', path: ['size'], message: `content has ${bytes.length} bytes` });
      }
      if (createHash('sha256').update(bytes).digest('hex') !== backup.sha256) {
        ctx.addIssue({ code: 'custom', path: ['sha256'], message: 'does not match the content' });
      }
    }),
);

/** One movement of a reseller's router-side ledger, as the agent parsed it from the user comment. */
const resellerMovementSchema = once(() =>
  z.object({
    /** `txn_<unix ms>_<random>`, trimmed by the agent: the idempotency key of the imported line. */
    id: z.string().regex(/^txn_\S{1,60}$/),
    /** Signed integer XOF: credit positive, debit negative. */
    amount: z.int(),
    /** `recharge`, `achat`, `correction` as the app wrote it (lowercased); other words are kept. */
    kind: z.string().max(40),
    note: z.string().max(200).optional(),
    /** Time carried by the id (`txn_<unix ms>_…`); null when the id holds no readable time. */
    at: z.iso.datetime().nullable(),
  }),
);

/** A reseller account kept by the local app as a hotspot user whose comment starts `tnr1|`. */
const resellerAccountSchema = once(() =>
  z.object({
    /** The hotspot user's `name` as typed in the app (mixed case and spaces happen). */
    name: label(),
    /** The `u=` field when present (the same text as `name` when the app was consistent). */
    login: z.string().max(200).optional(),
    first_name: z.string().max(200).optional(),
    last_name: z.string().max(200).optional(),
    phone: z.string().max(100).optional(),
    email: z.string().max(300).optional(),
    /** `bal=` in integer XOF; null when absent or unreadable (the account cannot be taken over). */
    balance: z.int().nullable(),
    /** `com=` in percent; null when absent or unreadable. */
    commission_rate: z.number().min(0).max(100).nullable(),
    /** `cr=` as YYYY-MM-DD; null when absent or not a date. */
    created_on: z.iso.date().nullable(),
    /** The hotspot user is disabled: the app's way of suspending a reseller. */
    disabled: z.boolean(),
    /** Oldest first, as the comment keeps them (the app kept only the last 20). */
    movements: z.array(resellerMovementSchema()).max(1000),
    /** What the agent could not read in the comment (a movement skipped, a bad balance, …). */
    warnings: z.array(z.string().max(300)).max(100),
  }),
);

/** One `/system/script` entry that looks like a sale record (its name holds the `-|-` separator). */
const salesEntrySchema = once(() =>
  z.object({
    /** RouterOS item id (`*1A`): the page cursor. */
    script_id: z.string().regex(/^\*[0-9A-Fa-f]{1,16}$/),
    /** Raw `date-|-time-|-code-|-price-|-ip-|-mac-|-validity-|-profile-|-comment[-|-expiry]`. */
    name: z.string().min(1).max(2000),
    /** The app's month tag (`mar2026`). */
    owner: z.string().max(200).optional(),
    comment: z.string().max(1000).optional(),
    /** The script source when it is short (the app writes the event date there); longer ones are left out. */
    source: z.string().max(64).optional(),
  }),
);

// The catalogue's schemas are built when a command of that name is first checked, not when this
// module loads: an idle agent holds the few it has used, not the whole catalogue (zod schemas cost
// kilobytes of heap each).
const COMMAND_SPECS = {
  /** Reads identity, model, versions, storage and uptime. */
  'router.facts': () => ({
    params: z.strictObject({}),
    output: ROUTER_FACTS_SCHEMA,
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /** Round trip from the agent to the RouterOS API, in milliseconds. */
  'router.ping': () => ({
    params: z.strictObject({}),
    output: z.object({ rtt_ms: z.number().min(0) }),
    defaultTimeoutSeconds: 10,
    effect: 'read',
  }),
  /**
   * Lists the hotspot users (and their profiles when asked). `count` is the number of users. The
   * built-in `default-trial` user (any `default=true` user) is not a voucher and is left out. Each
   * user carries its usage counters (`uptime_seconds`, `bytes_in`, `bytes_out`) when they are not 0.
   */
  'hotspot.users.export': () => ({
    params: z.strictObject({ include_profiles: z.boolean().optional() }),
    output: z
      .object({
        users: z.array(HOTSPOT_USER_SCHEMA),
        profiles: z.array(HOTSPOT_PROFILE_SCHEMA).optional(),
        count,
      })
      .refine((out) => out.count === out.users.length, {
        path: ['count'],
        message: 'must equal the number of users',
      }),
    defaultTimeoutSeconds: 120,
    effect: 'read',
  }),
  /**
   * The names of the hotspot users, without the built-in ones (`default=true`, or named
   * `default-trial`): the migration's inventory and the return's check. One print of `name,default`
   * only, so it costs far fewer bytes than an export. Read only.
   */
  'hotspot.users.names': () => ({
    params: z.strictObject({}),
    output: z
      .object({ names: z.array(label()).max(100_000), count })
      .refine((out) => out.count === out.names.length, {
        path: ['count'],
        message: 'must equal the number of names',
      }),
    defaultTimeoutSeconds: 60,
    effect: 'read',
  }),
  /**
   * Number of entries of `/ip/hotspot/user` as the router counts them (`print count-only`), the
   * built-in `default-trial` included. A trap fails the command (ROUTER_TRAP). Read only.
   */
  'hotspot.users.count': () => ({
    params: z.strictObject({}),
    output: z.object({ count }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /**
   * Removes the named hotspot users, between two router counts (`print count-only`) the controller
   * compares: the agent never judges a removal from the router's reply. If the first count traps,
   * nothing is removed nor looked up (`count_before` and `count_after` null, `count_error` the
   * router's message, `requested`, `absent` and `spared` 0);
   * if the second one traps, `count_after` is null and `count_error` set. Built-in users
   * (`default-trial`, `default=true`) are never removed: they are counted in `spared`; names not on
   * the router in `absent`; `requested` is the number of ids sent to remove. A trap on the removal
   * itself fails the command (ROUTER_TRAP). Idempotent: sent again, the names already removed are absent.
   */
  'hotspot.users.remove': () => ({
    params: z.strictObject({
      names: z
        .array(label())
        .min(1)
        .max(HOTSPOT_USERS_REMOVE_MAX)
        .superRefine((names, ctx) => refuseDuplicateNames(names, ctx)),
    }),
    output: z
      .object({
        /** All entries of `/ip/hotspot/user` before the removal; null when the count trapped. */
        count_before: count.nullable(),
        /** All entries after it; null when the count trapped (or nothing was attempted). */
        count_after: count.nullable(),
        /** The router's message when a count trapped. */
        count_error: z.string().max(1000).optional(),
        /** Ids sent to remove (0 when the first count trapped: nothing was looked up). */
        requested: count,
        /** Names not on the router. */
        absent: count,
        /** Built-in users named, left in place. */
        spared: count,
      })
      .refine(
        (out) => (out.count_before === null || out.count_after === null) === (out.count_error !== undefined),
        {
          path: ['count_error'],
          message: 'must be given exactly when a count is null',
        },
      )
      .refine((out) => out.count_before !== null || (out.count_after === null && out.requested === 0), {
        path: ['requested'],
        message: 'nothing is removed when the first count failed',
      }),
    defaultTimeoutSeconds: 120,
    effect: 'change',
  }),
  /**
   * Puts hotspot user profiles back (return to local accounts): a profile of the same name is `set`
   * to the fields given (absent fields are left as they are), any other is added. Idempotent.
   */
  'hotspot.profiles.restore': () => ({
    params: z.strictObject({
      profiles: z
        .array(z.strictObject(HOTSPOT_PROFILE_FIELDS))
        .min(1)
        .max(500)
        .superRefine((profiles, ctx) =>
          refuseDuplicateNames(
            profiles.map((p) => p.name),
            ctx,
          ),
        ),
    }),
    output: restoreOutputSchema(),
    defaultTimeoutSeconds: 60,
    effect: 'change',
  }),
  /**
   * Puts backed-up hotspot users back, at most 40 a batch, in the export's shape (the usage
   * counters are accepted and ignored: RouterOS does not let them be written). A user of the same
   * name is `set` to the backed-up password, profile, comment, limits and disabled flag (an absent
   * one clears the router's value: empty, or 0 for the limits, meaning none); any other is added.
   * The profiles must exist. A trap on any add or set fails the command; replaying the batch is
   * harmless. Built-in users are never touched (a `default-trial` in the batch is skipped).
   */
  'hotspot.users.restore': () => ({
    params: z.strictObject({
      users: z
        .array(z.strictObject(HOTSPOT_USER_FIELDS))
        .min(1)
        .max(HOTSPOT_USERS_RESTORE_BATCH)
        .superRefine((users, ctx) =>
          refuseDuplicateNames(
            users.map((u) => u.name),
            ctx,
          ),
        ),
    }),
    output: restoreOutputSchema(),
    defaultTimeoutSeconds: 60,
    effect: 'change',
    secretParams: ['users'],
  }),
  /**
   * Saves a RouterOS binary backup and returns it. `name` is the file stem on the router. A read:
   * it writes only its own backup file, never the configuration or the users.
   */
  'backup.save': () => ({
    params: z.strictObject({
      name: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
        .optional(),
    }),
    output: backupOutputSchema(),
    defaultTimeoutSeconds: 300,
    effect: 'read',
  }),
  /**
   * Reads the reseller accounts the local app keeps in hotspot user comments (`tnr1|…`), parsed,
   * and counts the `vendu par <name>` tags of the other users per name as written. Read only.
   */
  'resellers.export': () => ({
    params: z.strictObject({}),
    output: z.object({
      /** Serial of the router read (the licence id on a CHR): keys the opening balance of a takeover. */
      serial: label(64),
      accounts: z.array(resellerAccountSchema()).max(10_000),
      tags: z.array(z.object({ name: label(64), count: z.int().min(1) })).max(100_000),
      /** Hotspot users read, reseller accounts included. */
      users_scanned: count,
    }),
    defaultTimeoutSeconds: 120,
    effect: 'read',
  }),
  /**
   * One page of the local sales history (`/system/script` entries whose name holds `-|-`), in
   * ascending id order after `cursor`, raw: the controller parses them. Read only.
   */
  'sales.export': () => ({
    params: z.strictObject({
      cursor: z
        .string()
        .regex(/^\*[0-9A-Fa-f]{1,16}$/)
        .optional(),
      limit: z.int().min(1).max(5000).optional(),
    }),
    output: z.object({
      entries: z.array(salesEntrySchema()).max(5000),
      /** Id of the last entry of this page when more follow; null on the last page. */
      next_cursor: z.string().nullable(),
      /** Script entries the router listed after the cursor, sales or not. */
      scanned: count,
    }),
    defaultTimeoutSeconds: 60,
    effect: 'read',
  }),
  /**
   * Runs a RouterOS script once (`/system/script` add, run, remove): the RADIUS provisioning of an
   * enrolment. The script must be idempotent itself; a trap on any line fails the command.
   */
  'router.script.apply': () => ({
    params: z.strictObject({
      name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
      source: z.string().min(1).max(65_536),
    }),
    output: z.object({ name: label(64), duration_ms: z.number().min(0) }),
    defaultTimeoutSeconds: 60,
    effect: 'change',
    secretParams: ['source'],
  }),
  /**
   * Reads the router's RADIUS set-up for an enrolment check: the `/radius` entries whose comment
   * starts with `ticketnet:` (the secret only as its SHA-256), the hotspot server profiles' RADIUS
   * flags (`in_use`: a hotspot server runs on it) and `/radius incoming` accept. Read only.
   */
  'radius.status': () => ({
    params: z.strictObject({}),
    output: z.object({
      radius: z
        .array(
          z.object({
            address: z.string().max(255),
            service: z.array(z.string().max(64)).max(32),
            secret_sha256: z.string().regex(/^[0-9a-f]{64}$/),
            authentication_port: z.int().min(0).max(65535).nullable(),
            accounting_port: z.int().min(0).max(65535).nullable(),
            comment: z.string().max(1000),
            disabled: z.boolean(),
          }),
        )
        .max(1000),
      hotspot_profiles: z
        .array(
          z.object({
            name: label(),
            use_radius: z.boolean(),
            radius_accounting: z.boolean(),
            radius_interim_update: z.string().max(64).optional(),
            in_use: z.boolean(),
          }),
        )
        .max(1000),
      incoming_accept: z.boolean(),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  // ---- the migration's compact reads (an older agent answers UNKNOWN_COMMAND: the controller
  // then uses `hotspot.users.export` and `hotspot.users.names`)
  /**
   * `hotspot.users.export` in columns (`usersFromColumns` rebuilds the users): the same users,
   * profiles and count, a quarter fewer bytes on the link once compressed. Read only.
   */
  'hotspot.users.columns': () => ({
    params: z.strictObject({ include_profiles: z.boolean().optional() }),
    output: z
      .object({
        users: hotspotUserColumnsSchema(),
        profiles: z.array(HOTSPOT_PROFILE_SCHEMA).optional(),
        count,
      })
      .refine((out) => out.count === out.users.name.length, {
        path: ['count'],
        message: 'must equal the number of users',
      }),
    defaultTimeoutSeconds: 120,
    effect: 'read',
  }),
  /**
   * How many hotspot users `hotspot.users.names` would list (built-in ones left out), without the
   * names: the agent reads them from the router and sends the number only. Read only.
   */
  'hotspot.users.tally': () => ({
    params: z.strictObject({}),
    output: z.object({ count }),
    defaultTimeoutSeconds: 60,
    effect: 'read',
  }),
} as const satisfies Record<string, () => CommandSpec>;

type CommandSpecs = typeof COMMAND_SPECS;

/**
 * The closed command catalogue: name → params schema, output schema, default timeout.
 * Flat on purpose; a new command is one entry of `COMMAND_SPECS` (plus its handler in the agent).
 * Each entry is built on first access and kept.
 */
export const COMMANDS: { readonly [N in keyof CommandSpecs]: ReturnType<CommandSpecs[N]> } =
  builtOnFirstUse(COMMAND_SPECS);

function builtOnFirstUse<B extends Record<string, () => unknown>>(
  builders: B,
): { readonly [K in keyof B]: ReturnType<B[K]> } {
  const entries = {};
  for (const [name, build] of Object.entries(builders)) {
    let built: unknown;
    Object.defineProperty(entries, name, { enumerable: true, get: () => (built ??= build()) });
  }
  return Object.freeze(entries) as { readonly [K in keyof B]: ReturnType<B[K]> };
}

/** Name of a command in the catalogue. */
export type CommandName = keyof typeof COMMANDS;

/** Validated params of command `N`. */
export type CommandParams<N extends CommandName> = z.output<(typeof COMMANDS)[N]['params']>;

/** Validated output of command `N`. */
export type CommandOutput<N extends CommandName> = z.output<(typeof COMMANDS)[N]['output']>;

/** A command with checked params, discriminated by `name` so a `switch` narrows `params`. */
export type KnownCommand = { [N in CommandName]: { name: N; params: CommandParams<N> } }[CommandName];

/** Outcome of a catalogue check: the value, or the fault to answer in `result.fault`. */
export type CommandCheck<T> = { ok: true; value: T } | { ok: false; fault: Fault };

/** True when `name` is in the catalogue (own entries only, so `toString` or `__proto__` are not commands). */
export function isKnownCommand(name: unknown): name is CommandName {
  return typeof name === 'string' && Object.hasOwn(COMMANDS, name);
}

/**
 * Checks a command's params against the catalogue. Never throws: an unknown name gives an
 * `UNKNOWN_COMMAND` fault and bad params a `BAD_PARAMS` fault, both not retryable, ready to send
 * in a FAILED `result` (agent) or to turn into a 400 (controller, before storing the command).
 */
export function parseCommandParams(name: string, params: unknown): CommandCheck<KnownCommand> {
  if (!isKnownCommand(name)) {
    return {
      ok: false,
      fault: { code: 'UNKNOWN_COMMAND', message: `unknown command ${name}`, retryable: false },
    };
  }
  const parsed = COMMANDS[name].params.safeParse(params);
  if (!parsed.success) {
    const message = `bad params for ${name}: ${describeIssues(parsed.error, 'params')}`;
    return { ok: false, fault: { code: 'BAD_PARAMS', message, retryable: false } };
  }
  return { ok: true, value: { name, params: parsed.data } as KnownCommand };
}

/**
 * Checks a DONE result's output against the catalogue (controller side, before trusting it).
 * Output that does not match gives an `AGENT_ERROR` fault, not retryable.
 */
export function parseCommandOutput<N extends CommandName>(
  name: N,
  output: unknown,
): CommandCheck<CommandOutput<N>> {
  if (!isKnownCommand(name)) {
    return {
      ok: false,
      fault: { code: 'UNKNOWN_COMMAND', message: `unknown command ${name}`, retryable: false },
    };
  }
  const parsed = COMMANDS[name].output.safeParse(output);
  if (!parsed.success) {
    const message = `output of ${name} does not match the catalogue: ${describeIssues(parsed.error, 'output')}`;
    return { ok: false, fault: { code: 'AGENT_ERROR', message, retryable: false } };
  }
  return { ok: true, value: parsed.data as CommandOutput<N> };
}

/** True when command `name` alters the router (catalogue `effect: 'change'`); unknown names are not. */
export function changesRouter(name: string): boolean {
  return isKnownCommand(name) && (COMMANDS[name] as CommandSpec).effect === 'change';
}

/**
 * The params of a final command as both ends keep them: its secret params (`secretParams`)
 * replaced by `REDACTED`, the others as they were. Undefined when there is nothing to redact (a
 * command without secret params, or params that hold none of them), so callers write nothing.
 */
export function redactParams(name: string, params: unknown): Record<string, unknown> | undefined {
  if (!isKnownCommand(name) || typeof params !== 'object' || params === null) return undefined;
  const secret = (COMMANDS[name] as CommandSpec).secretParams ?? [];
  const present = secret.filter(
    (key) => Object.hasOwn(params, key) && (params as Record<string, unknown>)[key] !== REDACTED,
  );
  if (present.length === 0) return undefined;
  const redacted: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  for (const key of present) redacted[key] = REDACTED;
  return redacted;
}
