// Commands that are not plain record edits: backup, ping, file read, script
// run, lease make-static.
import { isIP } from 'node:net';
import { RosTrap, noSuchCommand, noSuchItem, pause } from './command-types.js';
import type { CommandContext, CommandHandler, CommandResult } from './command-types.js';
import { buildBackup } from './backup-file.js';
import type { MenuTable } from './menu-table.js';
import { formatDate, formatDateTime, formatTime, parseDuration } from './ros-format.js';

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
    state.writeFile(name, data);
  } catch {
    throw new RosTrap('not enough space');
  }
};

// ---- /ping ---------------------------------------------------------------------

/** Documentation networks never answer, so tests can ask for a dead host. */
const UNREACHABLE = [/^192\.0\.2\./, /^198\.51\.100\./, /^203\.0\.113\./];

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
  const dead = UNREACHABLE.some((re) => re.test(address));
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
    const us = rng.int(800, 45_000);
    rtts.push(us);
    const ms = (n: number): string =>
      state.caps.pingMicroseconds ? `${Math.floor(n / 1000)}ms${n % 1000}us` : `${Math.round(n / 1000)}ms`;
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

const MAX_CHUNK = 1024 * 1024;

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
  if (!Number.isInteger(chunk) || chunk <= 0 || chunk > MAX_CHUNK)
    throw new RosTrap('invalid value for argument chunk-size');
  ctx.re({ data: blob.subarray(offset, offset + chunk) });
};

const scriptRun: MenuVerb = (table, ctx) => {
  const ref = ctx.req.attrs.get('.id') ?? ctx.req.attrs.get('number') ?? '';
  const rec = table.resolve(ref);
  if (!rec) throw noSuchItem();
  const { state } = ctx.sim;
  table.update(rec, {
    'last-started': formatDateTime(state.caps, state.identity.now()),
    'run-count': String(Number(rec.props['run-count'] ?? '0') + 1),
  });
  // a script whose source is `:error "..."` fails like on the router
  const err = /^\s*:error\s+"([^"]*)"/.exec(rec.props.source ?? '');
  if (err) throw new RosTrap(err[1] ?? 'error');
};

const makeStatic: MenuVerb = (table, ctx) => {
  const ref = ctx.req.attrs.get('.id') ?? ctx.req.attrs.get('numbers') ?? '';
  const recs = ref.split(',').map((r) => table.resolve(r));
  if (recs.some((r) => !r)) throw noSuchItem();
  for (const rec of recs) if (rec) table.update(rec, { dynamic: 'false' });
};

/** Commands addressed by their full path. */
export const ACTIONS: Readonly<Record<string, CommandHandler>> = {
  '/system/backup/save': backupSave,
  '/ping': ping,
  '/tool/ping': ping,
};

/** Extra verbs of table menus. */
export const MENU_VERBS: Readonly<Record<string, Record<string, MenuVerb>>> = {
  '/file': { read: fileRead },
  '/system/script': { run: scriptRun },
  '/ip/dhcp-server/lease': { 'make-static': makeStatic },
};
