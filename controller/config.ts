// Controller configuration: environment variables, overridden by command-line flags.
// The README's config table is the user-facing copy of this file; keep them in step.
import { z } from 'zod';
import { hostname } from 'node:os';

const booleanish = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes' || v === 'on');

/** `100/15m` → 100 requests per 15 minutes; `off` disables the quota. */
const quota = z
  .string()
  .regex(/^(off|\d+\/\d+[smh])$/, 'expected N/<number><s|m|h> or off')
  .transform((v) => {
    if (v === 'off') return null;
    const [count, window] = v.split('/') as [string, string];
    const unit = window.slice(-1);
    const amount = Number(window.slice(0, -1));
    const ms = amount * (unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
    return { limit: Number(count), windowMs: ms };
  });

export const configSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().default('127.0.0.1'),
  db: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'expected sqlite:PATH or postgres://URL')
    .default('sqlite:./data/ticketnet.db'),
  dataDir: z.string().default('./data'),
  jwtSecret: z.string().min(32, 'must hold at least 32 characters').optional(),
  jwtTtlDays: z.coerce.number().int().min(1).max(365).default(30),
  apiQuota: quota.prefault('100/15m'),
  /** Failed credentials (bearer tokens, logins) per client IP before 429 RATE_LIMITED. */
  authFailureQuota: quota.prefault('20/15m'),
  /** Money actions (top-ups, batches, balance changes) per user before 429 CLICK_SPAM_PROTECTION. */
  moneyQuota: quota.prefault('30/1m'),
  trustProxy: booleanish.default(false),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  clock: z.enum(['system', 'manual']).default('system'),
  jobRunRoute: booleanish.default(false),
  scheduler: booleanish.default(true),
  schedulerTickMs: z.coerce.number().int().min(100).default(5000),
  bodyLimit: z.string().default('1mb'),
  instanceId: z.string().default(`${hostname()}:${process.pid}`),
  shutdownTimeoutMs: z.coerce.number().int().min(0).default(10_000),
  /** Base URL agents and people reach this controller at; unset means `http://<host>:<port>`. */
  publicUrl: z
    .url({ protocol: /^https?$/, message: 'expected an http:// or https:// URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** Largest frame an authenticated agent may send (a RouterOS backup in base64). */
  agentMaxFrameBytes: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  /** Largest frame before an agent's handshake has succeeded (a real enrol or hello is under 1 KiB). */
  agentPreAuthMaxFrameBytes: z.coerce
    .number()
    .int()
    .min(4096)
    .max(1024 * 1024)
    .default(24 * 1024),
  /** Agent sockets still in their handshake at once; more are refused (503) until some finish. */
  agentMaxHandshakes: z.coerce.number().int().min(1).default(1024),
  /** Agent sockets still in their handshake at once from one address; more are refused (429). */
  agentMaxHandshakesPerAddress: z.coerce.number().int().min(1).default(128),
  /** Time an agent has after the challenge to send its enrol or hello. */
  agentHandshakeTimeoutMs: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /**
   * Direct UDP RADIUS (a NAS on a VPN). Off by default: routers reach RADIUS through their agent,
   * and nothing needs to listen publicly.
   */
  radiusEnabled: booleanish.default(false),
  radiusHost: z.string().default('127.0.0.1'),
  radiusAuthPort: z.coerce.number().int().min(0).max(65535).default(1812),
  radiusAcctPort: z.coerce.number().int().min(0).max(65535).default(1813),
  /** Acct-Interim-Interval answered to NAS; sessions silent 3 × this long are closed as lost. */
  radiusInterimSeconds: z.coerce.number().int().min(60).max(86_400).default(300),
  /**
   * Where an enrolled router sends RADIUS when its agent has not reported its relay's address (an
   * agent without relay, or one older than that report): the agent container's address by default.
   * An agent that reports its relay is used as it reports it.
   */
  radiusRelayAddress: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/, 'expected an IP address or a host name')
    .default('172.31.255.2'),
  radiusRelayAuthPort: z.coerce.number().int().min(1).max(65535).default(1812),
  radiusRelayAcctPort: z.coerce.number().int().min(1).max(65535).default(1813),
  /**
   * Where a NAS on a VPN registered for direct UDP RADIUS sends it (its `/radius address=`): this
   * controller's RADIUS address as the VPN routes it. Unset: `radiusHost` unless it is a wildcard.
   */
  radiusDirectAddress: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/, 'expected an IP address or a host name')
    .optional(),
  /** How long an enrolment or a verification waits for each agent command before 503 RADIUS_BRIDGE_UNAVAILABLE. */
  nasBridgeTimeoutMs: z.coerce.number().int().min(100).max(120_000).default(20_000),
  /** The RADIUS flags: the migration confirmation job, its automatic confirmation, the daily affluence report. */
  radiusMigrationWatchEnabled: booleanish.default(true),
  radiusReadyAutoConfirmEnabled: booleanish.default(true),
  radiusAffluenceReportEnabled: booleanish.default(true),
  /**
   * How long a migration or return run holds its router without renewing: after a controller dies
   * mid-run, a replay may start once this has passed.
   */
  migrationLeaseMs: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  /** Push through FCM HTTP v1 when a service account key (JSON file) is given; else pushes are logged. */
  fcmServiceAccount: z.string().min(1).optional(),
  /** Defaults to the service account's project_id. */
  fcmProjectId: z
    .string()
    .regex(/^[A-Za-z0-9.:-]{1,100}$/, 'expected a Firebase project id')
    .optional(),
  // ---- remote access (docs/api/remote-access.md) ----
  /** Public host routers dial for their WireGuard/SSTP tunnel ({vpn_host}); unset: no VPN end (503). */
  vpnHost: z
    .string()
    .regex(/^[A-Za-z0-9.:-]{1,255}$/, 'expected a host name or address')
    .optional(),
  /** The VPN server's WireGuard interface, driven with `wg`. */
  vpnWireguardInterface: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,15}$/)
    .default('wg0'),
  /** Port of accel-ppp's SSTP server. */
  vpnSstpPort: z.coerce.number().int().min(1).max(65535).default(443),
  /** accel-ppp's chap-secrets file, where SSTP accounts are written. */
  vpnChapSecrets: z.string().min(1).default('/etc/accel-ppp/chap-secrets'),
  /** Up to two legacy WireGuard hosts, `host:port/publickey`, listed while a client's migration runs. */
  vpnLegacyWireguardHosts: z
    .string()
    .regex(
      /^\s*[A-Za-z0-9.-]{1,255}:\d{1,5}\/[A-Za-z0-9+/]{43}=\s*(,\s*[A-Za-z0-9.-]{1,255}:\d{1,5}\/[A-Za-z0-9+/]{43}=\s*)?$/,
      'expected host:port/base64-public-key, at most two separated by a comma',
    )
    .optional(),
  /**
   * Base64 32-byte key sealing every secret at rest (controller/core/secret-box.ts); unset: one
   * made in the data directory. Instances sharing one database must share it, as the JWT secret.
   */
  secretsKey: z
    .string()
    .regex(/^[A-Za-z0-9+/]{43}=$/, 'expected base64 of 32 bytes')
    .optional(),
  // ---- client equipment ----
  /** Whether the Suivi Pro device quota refuses adds (false: the add passes, `enforced` says so). */
  equipmentQuotaEnforced: booleanish.default(false),
  /** First and last dst-nat port reserved for client devices on each router (`20000-29999`). */
  equipmentPorts: z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, 'expected FIRST-LAST')
    .transform((v) => v.split('-').map(Number) as [number, number])
    .refine(([a, b]) => a >= 1024 && b <= 65535 && a <= b, 'expected 1024 <= FIRST <= LAST <= 65535')
    .prefault('20000-29999'),
  /** Domain under which each device gets its host (`<device id>.<domain>`) for signed links; unset: none. */
  equipmentDeviceDomain: z
    .string()
    .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i, 'expected a domain name')
    .optional(),
  /** Scheme of the device hosts' links (`https` behind the TLS terminator). */
  equipmentDeviceScheme: z.enum(['http', 'https']).default('https'),
  /** Ports the controller opens on request for a router's web UI, WinBox, API and SSH (`30000-30999`). */
  webAccessPorts: z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, 'expected FIRST-LAST')
    .transform((v) => v.split('-').map(Number) as [number, number])
    .refine(([a, b]) => a >= 1024 && b <= 65535 && a <= b, 'expected 1024 <= FIRST <= LAST <= 65535')
    .prefault('30000-30999'),
  /** Address those ports listen on (default: `host`, the HTTP API's; behind a proxy, a public one). */
  webAccessHost: z.string().min(1).optional(),
  // Technician hub and realtime broker (docs/api/support.md, docs/realtime.md).
  /** Browser origins admitted on /realtime (comma list, `*` for any); apps that send no Origin skip the check. */
  realtimeAllowedOrigins: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
        .filter((o) => o !== ''),
    ),
  /** Seconds between the broker's pings on /realtime; a client silent a whole period is closed. */
  realtimePingSeconds: z.coerce.number().int().min(1).max(600).default(25),
  /** Prior mean rating `m` of the reputation score (stars, 1 to 5). */
  supportPriorRating: z.coerce.number().min(1).max(5).default(3.5),
  /** Prior weight `C` of the reputation score (in fresh first reviews). */
  supportPriorWeight: z.coerce.number().min(0).max(1000).default(5),
});

export type Config = z.infer<typeof configSchema>;

/** Environment variable for each config key (flags use the kebab-case key, e.g. `--api-quota`). */
export const ENV_NAMES: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  db: 'TICKETNET_DB',
  dataDir: 'TICKETNET_DATA_DIR',
  jwtSecret: 'TICKETNET_JWT_SECRET',
  jwtTtlDays: 'TICKETNET_JWT_TTL_DAYS',
  apiQuota: 'TICKETNET_API_QUOTA',
  authFailureQuota: 'TICKETNET_AUTH_FAILURE_QUOTA',
  moneyQuota: 'TICKETNET_MONEY_QUOTA',
  trustProxy: 'TICKETNET_TRUST_PROXY',
  logLevel: 'TICKETNET_LOG_LEVEL',
  clock: 'TICKETNET_CLOCK',
  jobRunRoute: 'TICKETNET_JOB_RUN_ROUTE',
  scheduler: 'TICKETNET_SCHEDULER',
  schedulerTickMs: 'TICKETNET_SCHEDULER_TICK_MS',
  bodyLimit: 'TICKETNET_BODY_LIMIT',
  instanceId: 'TICKETNET_INSTANCE_ID',
  shutdownTimeoutMs: 'TICKETNET_SHUTDOWN_TIMEOUT_MS',
  publicUrl: 'TICKETNET_PUBLIC_URL',
  agentMaxFrameBytes: 'TICKETNET_AGENT_MAX_FRAME_BYTES',
  agentPreAuthMaxFrameBytes: 'TICKETNET_AGENT_PREAUTH_MAX_FRAME_BYTES',
  agentMaxHandshakes: 'TICKETNET_AGENT_MAX_HANDSHAKES',
  agentMaxHandshakesPerAddress: 'TICKETNET_AGENT_MAX_HANDSHAKES_PER_ADDRESS',
  agentHandshakeTimeoutMs: 'TICKETNET_AGENT_HANDSHAKE_TIMEOUT_MS',
  radiusEnabled: 'TICKETNET_RADIUS_ENABLED',
  radiusHost: 'TICKETNET_RADIUS_HOST',
  radiusAuthPort: 'TICKETNET_RADIUS_AUTH_PORT',
  radiusAcctPort: 'TICKETNET_RADIUS_ACCT_PORT',
  radiusInterimSeconds: 'TICKETNET_RADIUS_INTERIM_SECONDS',
  radiusRelayAddress: 'TICKETNET_RADIUS_RELAY_ADDRESS',
  radiusRelayAuthPort: 'TICKETNET_RADIUS_RELAY_AUTH_PORT',
  radiusRelayAcctPort: 'TICKETNET_RADIUS_RELAY_ACCT_PORT',
  radiusDirectAddress: 'TICKETNET_RADIUS_DIRECT_ADDRESS',
  nasBridgeTimeoutMs: 'TICKETNET_NAS_BRIDGE_TIMEOUT_MS',
  radiusMigrationWatchEnabled: 'TICKETNET_RADIUS_MIGRATION_WATCH_ENABLED',
  radiusReadyAutoConfirmEnabled: 'TICKETNET_RADIUS_READY_AUTO_CONFIRM_ENABLED',
  radiusAffluenceReportEnabled: 'TICKETNET_RADIUS_AFFLUENCE_REPORT_ENABLED',
  migrationLeaseMs: 'TICKETNET_MIGRATION_LEASE_MS',
  fcmServiceAccount: 'TICKETNET_FCM_SERVICE_ACCOUNT',
  fcmProjectId: 'TICKETNET_FCM_PROJECT_ID',
  vpnHost: 'TICKETNET_VPN_HOST',
  vpnWireguardInterface: 'TICKETNET_VPN_WIREGUARD_INTERFACE',
  vpnSstpPort: 'TICKETNET_VPN_SSTP_PORT',
  vpnChapSecrets: 'TICKETNET_VPN_CHAP_SECRETS',
  vpnLegacyWireguardHosts: 'TICKETNET_VPN_LEGACY_WG_HOSTS',
  equipmentQuotaEnforced: 'TICKETNET_EQUIPMENT_QUOTA_ENFORCED',
  equipmentPorts: 'TICKETNET_EQUIPMENT_PORTS',
  equipmentDeviceDomain: 'TICKETNET_EQUIPMENT_DEVICE_DOMAIN',
  equipmentDeviceScheme: 'TICKETNET_EQUIPMENT_DEVICE_SCHEME',
  webAccessPorts: 'TICKETNET_WEB_ACCESS_PORTS',
  webAccessHost: 'TICKETNET_WEB_ACCESS_HOST',
  realtimeAllowedOrigins: 'TICKETNET_REALTIME_ALLOWED_ORIGINS',
  realtimePingSeconds: 'TICKETNET_REALTIME_PING_SECONDS',
  supportPriorRating: 'TICKETNET_SUPPORT_PRIOR_RATING',
  supportPriorWeight: 'TICKETNET_SUPPORT_PRIOR_WEIGHT',
  secretsKey: 'TICKETNET_SECRETS_KEY',
};

/** The RADIUS flags' published names (`docs/api/migration.md`), read when the TICKETNET_ name is not set. */
export const ENV_ALIASES: Partial<Record<keyof Config, string>> = {
  radiusMigrationWatchEnabled: 'RADIUS_MIGRATION_WATCH_ENABLED',
  radiusReadyAutoConfirmEnabled: 'RADIUS_READY_AUTO_CONFIRM_ENABLED',
  radiusAffluenceReportEnabled: 'RADIUS_AFFLUENCE_REPORT_ENABLED',
};

/** The public URL when none is configured: the listen address and the port actually bound. */
export function defaultPublicUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class ConfigError extends Error {}

/** Builds the config from the environment, then flags (flags win). Throws ConfigError naming the bad key. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  flags: Partial<Record<keyof Config, unknown>> = {},
): Config {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const [key, name] of Object.entries(ENV_ALIASES)) {
    const value = env[name];
    if (raw[key] === undefined && value !== undefined && value !== '') raw[key] = value;
  }
  for (const [key, value] of Object.entries(flags)) {
    if (value !== undefined) raw[key] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      const name = ENV_NAMES[key as keyof Config] ?? key;
      return `${name}: ${i.message}`;
    });
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  return parsed.data;
}
