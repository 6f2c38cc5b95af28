import { createHash } from 'node:crypto';
import { z } from 'zod';
import { decodeBase64Strict } from './base64.js';
import { describeIssues } from './describe-issues.js';
import type { Fault } from './fault-codes.js';
import { base64Bytes, label } from './fields.js';
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

// ---- remote access (WireGuard / SSTP transport, rescue relay) ----
// The helper schemas of the commands below are built on first use, as the commands' own are.
const WG_KEY = once(() =>
  z.string().regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw480]=$/, 'a WireGuard key (base64 of 32 bytes)'),
);
const IPV4 = once(() => z.ipv4());
const RA_INTERFACE = once(() => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/));
const RA_HOST = once(() =>
  z
    .string()
    .min(1)
    .max(255)
    .regex(/^[A-Za-z0-9.:-]+$/),
);
const RA_PORT = once(() => z.int().min(1).max(65535));
export const TRANSPORT_PROTOCOLS = ['WIREGUARD', 'SSTP'] as const;
// ---- Client equipment (controller/modules/equipment) -------------------------------------------

/** A MAC address, colon-separated, as RouterOS prints it. */
const macAddress = once(() => z.string().regex(/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/));
/** The comment that marks what ticketnet placed for one device: `ticketnet:<device id>`. */
export const equipmentMarker = (deviceId: string): string => `ticketnet:${deviceId}`;

const EQUIPMENT_TARGET = once(() => ({
  /** The device's id: the rule and the probe carry `ticketnet:<id>` as their comment. */
  device_id: z.uuid(),
  lan_ip: IPV4(),
  /** Null when the device was declared without a MAC (no lease is pinned). */
  mac: macAddress().nullable(),
}));

/** What the router holds for one device, as `equipment.status` reads it. */
const EQUIPMENT_STATE_SCHEMA = once(() =>
  z.object({
    device_id: z.uuid(),
    /** The marked dst-nat rule; null when absent (a second one is reported in `extra_rules`). */
    rule: z
      .object({
        disabled: z.boolean(),
        chain: z.string().max(64),
        action: z.string().max(64),
        protocol: z.string().max(32),
        dst_port: z.string().max(64),
        to_addresses: z.string().max(64),
        to_ports: z.string().max(64),
      })
      .nullable(),
    extra_rules: count,
    /** The DHCP lease of the device's MAC (else of its address); null when none. */
    lease: z
      .object({ address: z.string().max(64), mac: z.string().max(32), dynamic: z.boolean() })
      .nullable(),
    /** MAC the ARP table holds for the device's address; null when no complete entry. */
    arp_mac: z.string().max(32).nullable(),
    /** Address the ARP table holds for the device's MAC; null when none. */
    arp_ip_of_mac: z.string().max(64).nullable(),
    /** The marked netwatch probe; null when absent. */
    probe: z
      .object({
        status: z.enum(['up', 'down', 'unknown']),
        since: z.string().max(64).nullable(),
        disabled: z.boolean(),
      })
      .nullable(),
  }),
);

/** Rates cross the link in kbit/s; RouterOS takes bits per second. */
const KBPS = once(() => z.int().min(1).max(10_000_000));
const IPV4_PREFIX = once(() =>
  z.string().regex(/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}(\/([0-9]|[12]\d|3[0-2]))?$/),
);
const BW_KEY = once(() => z.string().regex(/^[a-z0-9_]{1,24}$/));

/** Params of `bandwidth.apply` (docs/bandwidth.md gives where each object sits). */
const BW_DIGEST = once(() => z.string().regex(/^[0-9a-f]{32}$/));

const BANDWIDTH_APPLY_PARAMS = once(() =>
  z.strictObject({
    /** The global cap, or null when it is off. */
    cap: z
      .strictObject({
        limit_kbps: KBPS(),
        /** Essential traffic's guaranteed part of the cap (limit-at), strictly between 0 and 1. */
        essential_share: z.number().gt(0).lt(1),
      })
      .nullable(),
    /** Essential classes: an address list each, marked high priority while the cap is on. */
    classes: z
      .array(z.strictObject({ id: BW_KEY(), ranges: z.array(IPV4_PREFIX()).min(1).max(500) }))
      .max(20),
    /** Throttled users: one queue each over all their addresses. */
    users: z
      .array(z.strictObject({ key: BW_KEY(), limit_kbps: KBPS(), addresses: z.array(IPV4()).min(1).max(16) }))
      .max(100),
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
  // --- ticket shop ---
  /**
   * The hotspot user profiles alone (`/ip/hotspot/user/profile`), in the export's shape: the
   * shop's router sync reads them every 30 minutes without carrying every user over a weak link.
   */
  'hotspot.profiles.list': () => ({
    params: z.strictObject({}),
    output: z.object({ profiles: z.array(HOTSPOT_PROFILE_SCHEMA).max(1000) }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  // ---- remote access: applied only through the remote-access module's rules ----
  /**
   * Creates or updates the WireGuard interface `interface` (RouterOS 7 only) with the private key,
   * one peer (the {vpn_host} end) and the router's tunnel address. Idempotent: a replay rewrites
   * the same entries. Answers the public key the router derived from the private key.
   */
  'vpn.wireguard.apply': () => ({
    params: z.strictObject({
      interface: RA_INTERFACE(),
      private_key: WG_KEY(),
      preshared_key: WG_KEY(),
      server_public_key: WG_KEY(),
      endpoint_host: RA_HOST(),
      endpoint_port: RA_PORT(),
      /** The router's management address on the tunnel, e.g. 10.96.0.2/32. */
      address: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/32$/),
      /** What the router sends through the tunnel (the server's block). */
      allowed_address: z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/),
      keepalive_seconds: z.int().min(0).max(3600),
    }),
    output: z.object({ interface: RA_INTERFACE(), public_key: WG_KEY() }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
    secretParams: ['private_key', 'preshared_key'],
  }),
  /** Creates or updates the SSTP client interface `interface` dialling the {vpn_host} end. Idempotent. */
  'vpn.sstp.apply': () => ({
    params: z.strictObject({
      interface: RA_INTERFACE(),
      connect_to: RA_HOST(),
      port: RA_PORT(),
      user: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
      password: z.string().min(8).max(128),
    }),
    output: z.object({ interface: RA_INTERFACE() }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
    secretParams: ['password'],
  }),
  /**
   * Proves a transport on the router: the interface runs, the tunnel is up (WireGuard: the peer's
   * last handshake; SSTP: the client is connected), traffic passed, the router holds its own
   * management address, and pings from that address to the server's answer. Read only.
   */
  'vpn.probe': () => ({
    params: z.strictObject({
      protocol: z.enum(TRANSPORT_PROTOCOLS),
      interface: RA_INTERFACE(),
      server_address: IPV4(),
      router_address: IPV4(),
    }),
    output: z.object({
      present: z.boolean(),
      running: z.boolean(),
      /** Seconds since the last WireGuard handshake / the SSTP link came up; null: never. */
      connected_seconds_ago: z.int().min(0).nullable(),
      rx_bytes: count,
      tx_bytes: count,
      address_present: z.boolean(),
      ping_sent: count,
      ping_received: count,
    }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /** Removes a transport's interface (and its WireGuard peers) from the router; absent is done. */
  'vpn.transport.remove': () => ({
    params: z.strictObject({ protocol: z.enum(TRANSPORT_PROTOCOLS), interface: RA_INTERFACE() }),
    output: z.object({ removed: z.boolean() }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /**
   * Rescue relay (MikroTik's Back To Home under `/ip/cloud`): dynamic DNS first, then the relay
   * VPN, then (7.14+) a per-user entry named `user`. Touches no firewall, address or route, and
   * never the L2TP/IPsec quick-setup server. A model or version without it answers
   * UNAVAILABLE_ON_MODEL (not a failure).
   */
  'vpn.rescue.enable': () => ({
    params: z.strictObject({ user: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/) }),
    output: z.object({
      state: z.enum(['ENABLING', 'UNAVAILABLE_ON_MODEL']),
      reason: z.string().max(200).optional(),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /**
   * Reads the relay's state and client profile. The profile holds a private key: it leaves the
   * agent only sealed (nacl.box) to `seal_to`, a one-time X25519 key of the controller.
   */
  'vpn.rescue.read': () => ({
    params: z.strictObject({ user: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), seal_to: WG_KEY() }),
    output: z.object({
      state: z.enum(['READY', 'NOT_READY', 'UNAVAILABLE_ON_MODEL']),
      vpn_status: z.string().max(500),
      dns_name: z.string().max(255).nullable(),
      port: z.int().min(0).max(65535).nullable(),
      sealed_profile: z
        .object({ ephemeral_public_key: WG_KEY(), nonce: z.string().max(64), box: z.string().max(16_384) })
        .nullable(),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /**
   * Replaces the login the agent uses for this router's API (the credentials the app deposited):
   * the agent first logs in with them on their own connection, then keeps them in its state
   * directory (owner-only) and uses them for every later call. Refused (the old login kept) when
   * the router does not accept them. Both the name and the password are secret.
   */
  'router.login.set': () => ({
    params: z.strictObject({
      user: z.string().regex(/^[^\s=]{1,64}$/),
      password: z.string().max(256),
      /** The router's API port when it is not the one the agent uses now. */
      api_port: RA_PORT().optional(),
    }),
    output: z.object({ applied: z.literal(true), api_port: RA_PORT() }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
    secretParams: ['user', 'password'],
  }),
  // ---- Client equipment (controller/modules/equipment) -------------------------------------------
  /**
   * The LAN as the router sees it, raw: ARP entries, DHCP leases, its own addresses, the interfaces
   * holding a hotspot server and the container (veth) interfaces. The controller crosses and filters
   * them (docs/api/equipment.md). Read only.
   */
  'lan.scan': () => ({
    params: z.strictObject({}),
    output: z.object({
      arp: z
        .array(
          z.object({
            address: z.string().max(64),
            mac: z.string().max(32).nullable(),
            interface: z.string().max(200),
          }),
        )
        .max(10_000),
      leases: z
        .array(
          z.object({
            address: z.string().max(64),
            mac: z.string().max(32).nullable(),
            host_name: z.string().max(200).nullable(),
            dynamic: z.boolean(),
          }),
        )
        .max(10_000),
      /** The router's own addresses, CIDR as printed (`192.168.88.1/24`), with their interface. */
      addresses: z.array(z.object({ address: z.string().max(64), interface: z.string().max(200) })).max(1000),
      hotspot_interfaces: z.array(z.string().max(200)).max(1000),
      container_interfaces: z.array(z.string().max(200)).max(1000),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /**
   * Puts a device's access in place, idempotently: the DHCP lease made static (a static lease added
   * when the MAC has none), the one dst-nat rule marked `ticketnet:<id>` added or set to these
   * values and enabled (never a second one: extra marked rules are removed), and the netwatch probe
   * on the service port when `probe_interval_seconds` is given (removed when null).
   */
  'equipment.pin': () => ({
    params: z.strictObject({
      ...EQUIPMENT_TARGET(),
      service_port: z.int().min(1).max(65535),
      dstnat_port: z.int().min(1).max(65535),
      /**
       * Only the agent may use the rule (`src-address` = the agent's address as the router sees it):
       * the forward is never open to the LAN or the internet.
       */
      agent_only: z.boolean(),
      pin_lease: z.boolean(),
      probe_interval_seconds: z.int().min(60).max(86_400).nullable(),
    }),
    output: z.object({
      /** The lease is static now; null when the device has no MAC or no lease could be made. */
      lease_static: z.boolean().nullable(),
      rule_added: z.boolean(),
      /** The rule's `src-address`; null when the rule is open to any source. */
      src_address: z.string().max(64).nullable(),
      probe: z.boolean(),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /** Reads what the router holds for each device (rule, lease, ARP, probe). Read only. */
  'equipment.status': () => ({
    params: z.strictObject({ devices: z.array(z.strictObject(EQUIPMENT_TARGET())).min(1).max(200) }),
    output: z.object({ devices: z.array(EQUIPMENT_STATE_SCHEMA()).max(200) }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /** Removes the marked rule and probe of a device (the lease stays, as the owner may rely on it). */
  'equipment.unpin': () => ({
    params: z.strictObject({ device_id: z.uuid() }),
    output: z.object({ rules_removed: count, probes_removed: count }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /**
   * The router's management services (`/ip service`): name, port, whether enabled and the TLS
   * certificate (null for none), for the controller's web access to the router itself. Read only.
   */
  'router.services': () => ({
    params: z.strictObject({}),
    output: z.object({
      services: z
        .array(
          z.object({
            name: z.string().max(64),
            port: z.int().min(1).max(65535),
            disabled: z.boolean(),
            certificate: z.string().max(200).nullable(),
          }),
        )
        .max(64),
    }),
    defaultTimeoutSeconds: 20,
    effect: 'read',
  }),
  // ---- bandwidth programme (docs/bandwidth.md) ----
  /**
   * The hotspot's open sessions with their counters (`/ip/hotspot/active`): user, address and
   * bytes since login, for the bandwidth programme's targeted users. Read only.
   */
  'hotspot.active.usage': () => ({
    params: z.strictObject({}),
    output: z.object({
      sessions: z
        .array(
          z.object({
            user: z.string().max(200),
            address: z.string().max(64),
            bytes_in: count,
            bytes_out: count,
          }),
        )
        .max(100_000),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'read',
  }),
  /**
   * Brings the router's bandwidth objects (comment `ticketnet:bw:<key>`, queue types named
   * `tn-bw-…`) to the set these params describe, in one idempotent pass: it reads the marked
   * objects, writes only the difference (adds, sets, removals) and undoes hand edits; unmarked
   * objects are never touched. `cap` null and no `users`: every marked object is removed and
   * FastTrack works again. Counts what it found and wrote; `state` is ON when the capped parent
   * queues are on the router afterwards.
   */
  'bandwidth.apply': () => ({
    params: BANDWIDTH_APPLY_PARAMS(),
    output: z.object({
      found: count,
      added: count,
      updated: count,
      removed: count,
      state: z.enum(['ON', 'OFF']),
      /** Throttled-user queues on the router afterwards. */
      users: count,
      /** WAN interface the marks were written for; null when nothing needed one. */
      wan_interface: z.string().max(200).nullable(),
      /** Digest of the marked objects as the router holds them afterwards (`bandwidth.digest`). */
      digest: BW_DIGEST().optional(),
    }),
    defaultTimeoutSeconds: 60,
    effect: 'change',
  }),
  // ---- network-quality kick (docs/api/qoe.md) ----
  /**
   * Sends one RADIUS Disconnect-Request (RFC 5176), built and signed by the controller, to the
   * router's `/radius incoming` from the agent's relay address (the only source the router accepts
   * it from), and reports the router's answer. An ACK is only the router's word: whether the
   * session ended is seen in accounting or in the router's active list.
   */
  'radius.disconnect': () => ({
    params: z.strictObject({ packet: base64Bytes(20, 4096) }),
    output: z.object({
      /** ACK, NAK, or NONE when the router did not answer in time (or the relay is off). */
      answer: z.enum(['ACK', 'NAK', 'NONE']),
      /** Error-Cause of a NAK (RFC 5176 section 3.6), when the router gave one. */
      error_cause: z.int().min(0).max(0xffffffff).nullable(),
    }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /**
   * Logs out the hotspot sessions of one user (`/ip/hotspot/active` remove), those at `address`
   * only when it is given. Counts the user's matching entries before and after: `remaining` is a
   * read of the active list after the removal, never the removal's own reply.
   */
  'hotspot.active.remove': () => ({
    params: z.strictObject({
      user: z.string().min(1).max(200),
      address: z.ipv4().optional(),
    }),
    output: z.object({ found: count, removed: count, remaining: count }),
    defaultTimeoutSeconds: 30,
    effect: 'change',
  }),
  /**
   * Reads the router's marked bandwidth objects and answers their digest, as `bandwidth.apply`
   * gives it after writing: equal digests mean the router still holds what was applied (hand
   * edits, a moved WAN or FastTrack rule change it). Writes nothing. The agent may answer the
   * digest of its last full read when the router announced no change since (bandwidth-watch.ts).
   */
  'bandwidth.digest': () => ({
    params: z.strictObject({}),
    output: z.object({
      digest: BW_DIGEST(),
      /** Marked objects found. */
      found: count,
      wan_interface: z.string().max(200).nullable(),
    }),
    defaultTimeoutSeconds: 30,
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
