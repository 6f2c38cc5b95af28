import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeBase64Strict } from './base64.js';
import { describeIssues } from './describe-issues.js';
import type { Fault } from './fault-codes.js';
import { label } from './fields.js';

/** One entry of the command catalogue. */
export interface CommandSpec {
  /** Schema of `command.params`. Strict: an unknown param is refused, as the agent could not honour it. */
  readonly params: z.ZodType;
  /** Schema of `result.output` when `status` is `DONE`; extra fields are dropped for forward compatibility. */
  readonly output: z.ZodType;
  /** Deadline the controller gives the command when the caller does not choose one. */
  readonly defaultTimeoutSeconds: number;
}

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

const HOTSPOT_USER_SCHEMA = z.object({
  name: label(),
  password: z.string().max(200).optional(),
  profile: label(),
  comment: z.string().max(1000).optional(),
  /** RouterOS `limit-uptime` converted by the agent to seconds. */
  limit_uptime: count.optional(),
  /** RouterOS `limit-bytes-total` in bytes. */
  limit_bytes_total: count.optional(),
  disabled: z.boolean(),
});

const HOTSPOT_PROFILE_SCHEMA = z.object({
  name: label(),
  /** RouterOS `rate-limit` text as configured, e.g. `2M/4M`. */
  rate_limit: z.string().max(200).optional(),
  shared_users: z.int().min(1).optional(),
  /** RouterOS `session-timeout` converted to seconds. */
  session_timeout: count.optional(),
});

const BACKUP_OUTPUT_SCHEMA = z
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
  });

/**
 * The closed command catalogue: name → params schema, output schema, default timeout.
 * Flat on purpose; a new command is one entry here (plus its handler in the agent).
 */
export const COMMANDS = {
  /** Reads identity, model, versions, storage and uptime. */
  'router.facts': {
    params: z.strictObject({}),
    output: ROUTER_FACTS_SCHEMA,
    defaultTimeoutSeconds: 30,
  },
  /** Round trip from the agent to the RouterOS API, in milliseconds. */
  'router.ping': {
    params: z.strictObject({}),
    output: z.object({ rtt_ms: z.number().min(0) }),
    defaultTimeoutSeconds: 10,
  },
  /** Lists the hotspot users (and their profiles when asked). `count` is the number of users. */
  'hotspot.users.export': {
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
  },
  /** Saves a RouterOS binary backup and returns it. `name` is the file stem on the router. */
  'backup.save': {
    params: z.strictObject({
      name: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
        .optional(),
    }),
    output: BACKUP_OUTPUT_SCHEMA,
    defaultTimeoutSeconds: 300,
  },
} as const satisfies Record<string, CommandSpec>;

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
