// Commands that are not plain record edits: backup, ping, file read, script
// run and import, hotspot login, lease make-static.
import { isIP } from 'node:net';
import { RosTrap, noSuchCommand, noSuchItem, pause } from './command-types.js';
import { SSTP_CLIENT_VERBS } from './vpn-tunnels.js';
import { CLOUD_VERBS, WIREGUARD_PEER_VERBS } from './back-to-home.js';
import type { CommandContext, CommandHandler, CommandResult } from './command-types.js';
import { buildBackup } from './backup-file.js';
import type { MenuTable } from './menu-table.js';
import { formatDate, formatDateTime, formatTime, parseDuration } from './ros-format.js';
import { runScriptText } from './script-runner.js';
import { decodeWin1252 } from './win1252.js';

type MenuVerb = (table: MenuTable, ctx: CommandContext) => Promise<CommandResult> | CommandResult;

// ---- /system/backup/save --------------------------------------------------------

const backupSave: CommandHandler = async (ctx) => {
  const { state, faults, timing } = ctx.sim;
  const attrs = ctx.req.attrs;
  const now = state.identity.now();
  const stamp =
    formatDate({ ...state.caps, isoDates: true }, now).replaceAll('-', '') +
    '-' +
    formatTime(now).slice(0, 5).replace(':', '');
  let name =
    attrs.get('name') || `${state.table('/system/identity').single().props.name ?? 'MikroTik'}-${stamp}`;
  if (!name.endsWith('.backup')) name += '.backup';
  if (faults.active.outOfFlash) throw new RosTrap('not enough space');
  await pause(timing.backupDelayMs, ctx.signal);
  if (faults.active.loseBackup) return;
  const encrypt = Boolean(attrs.get('password')) && attrs.get('dont-encrypt') !== 'yes';
  const data = faults.active.emptyBackup ? Buffer.alloc(0) : buildBackup(state, encrypt);
  try {
    state.writeGrowingFile(name, data, faults.backupGrowthPolls());
  } catch {
    throw new RosTrap('not enough space');
  }
};

// ---- /ping ---------------------------------------------------------------------

/** Documentation networks never answer, so tests can ask for a dead host. */
const UNREACHABLE = [/^192\.0\.2\./, /^198\.51\.100\./, /^203\.0\.113\./];

const PRIVATE = [/^10\./, /^127\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./, /^169\.254\./];
const isPrivate = (address: string): boolean => PRIVATE.some((re) => re.test(address));

function parseInterval(text: string | undefined, fallbackMs: number): number {
  if (text === undefined || text === '') return fallbackMs;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const seconds = parseDuration(text);
  if (seconds === undefined) throw new RosTrap('invalid value for argument interval');
  return seconds * 1000;
}

const ping: CommandHandler = async (ctx) => {
  const { attrs } = ctx.req;
  const { rng, timing, state } = ctx.sim;
  const address = attrs.get('address');
  if (!address) throw new RosTrap('missing value(s) of argument(s) address');
  if (!isIP(address)) throw new RosTrap('invalid value for argument address');
  const count = attrs.has('count') ? Number(attrs.get('count')) : Infinity;
  if (!(count > 0)) throw new RosTrap('invalid value for argument count');
  const intervalMs = parseInterval(attrs.get('interval'), timing.pingIntervalMs);
  const size = attrs.get('size') ?? '56';
  const src = attrs.get('src-address');
  // From a tunnel's address, only that tunnel carries the ping (vpn-tunnels.ts).
  const tunnel = src ? ctx.sim.tunnels.pingThrough(address, src, Number(size)) : undefined;
  const dead = tunnel === false || UNREACHABLE.some((re) => re.test(address));
  const rtts: number[] = [];
  let sent = 0;
  for (let seq = 0; seq < count && !ctx.signal.aborted; seq++) {
    if (seq > 0) await pause(intervalMs, ctx.signal);
    if (ctx.signal.aborted) break;
    sent++;
    const base: Record<string, string> = { seq: String(seq), host: address };
    if (dead) {
      ctx.re({ ...base, status: 'timeout', sent: String(sent), received: '0', 'packet-loss': '100' });
      continue;
    }
    const ms = (n: number): string =>
      state.caps.pingMicroseconds ? `${Math.floor(n / 1000)}ms${n % 1000}us` : `${Math.round(n / 1000)}ms`;
    // Past the WAN the link's profile decides; a LAN host answers at LAN speed.
    const us = isPrivate(address) ? rng.int(800, 45_000) : ctx.sim.wan.echo();
    if (us === null) {
      // a lost echo: RouterOS prints the sequence as timed out, with the running totals
      const lost = { ...base, status: 'timeout', sent: String(sent), received: String(rtts.length) };
      const loss = String(Math.round((100 * (sent - rtts.length)) / sent));
      ctx.re({ ...lost, 'packet-loss': loss });
      continue;
    }
    rtts.push(us);
    ctx.re({
      ...base,
      size,
      ttl: '57',
      time: ms(us),
      sent: String(sent),
      received: String(rtts.length),
      'packet-loss': String(Math.round((100 * (sent - rtts.length)) / sent)),
      'min-rtt': ms(Math.min(...rtts)),
      'avg-rtt': ms(Math.round(rtts.reduce((a, b) => a + b, 0) / rtts.length)),
      'max-rtt': ms(Math.max(...rtts)),
    });
  }
};

// ---- per-menu verbs ------------------------------------------------------------------

const fileRead: MenuVerb = (table, ctx) => {
  if (!ctx.sim.state.caps.fileRead) throw noSuchCommand();
  const { attrs } = ctx.req;
  const name = attrs.get('file') ?? attrs.get('.id') ?? '';
  const rec = name.startsWith('*') ? table.resolve(name) : ctx.sim.state.findFile(name);
  if (!rec || rec.props.type === 'directory') throw noSuchItem();
  const blob = rec.blob ?? Buffer.alloc(0);
  const offset = Number(attrs.get('offset') ?? '0');
  const chunk = Number(attrs.get('chunk-size') ?? '');
  if (!Number.isInteger(offset) || offset < 0) throw new RosTrap('invalid value for argument offset');
  // RouterOS refuses chunks above 32 KiB (fileReadChunkCap can move the limit)
  if (!Number.isInteger(chunk) || chunk <= 0 || chunk > ctx.sim.faults.fileReadChunkLimit())
    throw new RosTrap('invalid value for argument chunk-size');
  ctx.re({ data: blob.subarray(offset, offset + chunk) });
};

const scriptRun: MenuVerb = async (table, ctx) => {
  const { attrs } = ctx.req;
  const ref = attrs.get('.id') ?? attrs.get('number') ?? attrs.get('numbers') ?? '';
  const rec = table.resolve(ref);
  if (!rec) throw noSuchItem();
  const { state } = ctx.sim;
  table.update(rec, {
    'last-started': formatDateTime(state.caps, state.identity.now()),
    'run-count': String(Number(rec.props['run-count'] ?? '0') + 1),
  });
  const result = await runScriptText(ctx.sim, rec.props.source ?? '', 'run');
  if (!result.ok) throw new RosTrap(result.error ?? 'script error');
};

// ---- /import -------------------------------------------------------------------

const importFile: CommandHandler = async (ctx) => {
  const name = ctx.req.attrs.get('file-name') ?? '';
  if (!name) throw new RosTrap('missing value(s) of argument(s) file-name');
  const file = ctx.sim.state.findFile(name);
  if (!file || file.props.type === 'directory') throw new RosTrap('no such file');
  const result = await runScriptText(ctx.sim, decodeWin1252(file.blob ?? Buffer.alloc(0)), 'import');
  if (!result.ok) throw new RosTrap(result.error ?? 'Script Error');
};

// ---- /ip/hotspot/active/login ------------------------------------------------------

const hotspotLogin: MenuVerb = async (_table, ctx) => {
  const { attrs } = ctx.req;
  const user = attrs.get('user') ?? '';
  if (!user) throw new RosTrap('missing value(s) of argument(s) user');
  const ip = attrs.get('ip');
  const mac = attrs.get('mac-address');
  if (ip !== undefined && !isIP(ip)) throw new RosTrap('invalid value for argument ip');
  const result = await ctx.sim.nas.login({
    user,
    password: attrs.get('password') ?? '',
    ...(mac ? { mac } : {}),
    ...(ip ? { ip } : {}),
    ...(attrs.get('server') ? { server: attrs.get('server') } : {}),
  });
  if (!result.ok) throw new RosTrap(result.reason ?? 'login failed');
};

// ---- /log info|warning|error|debug -------------------------------------------------

const logVerb =
  (level: string): MenuVerb =>
  (_table, ctx) => {
    ctx.sim.state.log(`script,${level}`, ctx.req.attrs.get('message') ?? '');
  };

const makeStatic: MenuVerb = (table, ctx) => {
  const ref = ctx.req.attrs.get('.id') ?? ctx.req.attrs.get('numbers') ?? '';
  const recs = ref.split(',').map((r) => table.resolve(r));
  if (recs.some((r) => !r)) throw noSuchItem();
  for (const rec of recs) if (rec) table.update(rec, { dynamic: 'false' });
};

/** `/container/start` and `stop`: the container runs at once (no image is pulled). */
const containerState =
  (status: 'running' | 'stopped'): MenuVerb =>
  (table, ctx) => {
    const ref = ctx.req.attrs.get('.id') ?? ctx.req.attrs.get('numbers') ?? '';
    if (ref === '') throw new RosTrap('missing value(s) of argument(s) .id');
    const recs = ref.split(',').map((r) => table.resolve(r));
    if (recs.some((r) => !r)) throw noSuchItem();
    for (const rec of recs) if (rec) table.update(rec, { status });
  };

/** Commands addressed by their full path. */
export const ACTIONS: Readonly<Record<string, CommandHandler>> = {
  '/system/backup/save': backupSave,
  '/ping': ping,
  '/tool/ping': ping,
  '/import': importFile,
};

/** Extra verbs of table menus. */
export const MENU_VERBS: Readonly<Record<string, Record<string, MenuVerb>>> = {
  '/file': { read: fileRead },
  '/system/script': { run: scriptRun },
  '/ip/hotspot/active': { login: hotspotLogin },
  '/log': {
    info: logVerb('info'),
    warning: logVerb('warning'),
    error: logVerb('error'),
    debug: logVerb('debug'),
  },
  '/ip/dhcp-server/lease': { 'make-static': makeStatic },
  '/container': { start: containerState('running'), stop: containerState('stopped') },
  '/interface/sstp-client': SSTP_CLIENT_VERBS,
  '/ip/cloud': CLOUD_VERBS,
  '/interface/wireguard/peers': WIREGUARD_PEER_VERBS,
};
