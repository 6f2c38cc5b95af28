// Generic verbs every table menu understands: print/getall, add, set,
// remove, enable, disable, unset, get, comment, listen. Per-menu quirks go
// through MENU_HOOKS at the bottom rather than branches in the verbs.
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { RosTrap, noSuchCommand, noSuchItem } from './command-types.js';
import type { CommandContext, CommandHandler, CommandResult } from './command-types.js';
import type { MenuDef, MenuTable, SimRecord } from './menu-table.js';
import { QueryError, compileQuery, requiredValues } from './query-filter.js';
import type { RecordView } from './query-filter.js';
import { formatDuration, formatId, normaliseBool, parseDuration } from './ros-format.js';
import type { RouterState } from './router-state.js';
import { checkGroupUnused, normalisePolicy } from './user-accounts.js';
import { QOS_MENU_HOOKS } from './qos-menus.js';
import { encodeWin1252 } from './win1252.js';

type Verb = (table: MenuTable, ctx: CommandContext) => Promise<CommandResult> | CommandResult;

/** Attributes that steer a command rather than set a property. */
const CONTROL_ATTRS = new Set([
  '.id',
  'numbers',
  'number',
  'value-name',
  'count-only',
  'follow',
  'follow-only',
  'detail',
  'without-paging',
  'stats',
  'terse',
  'brief',
  'interval',
  'as-value',
  'place-before',
]);

/** Duration properties that also take a word instead of a time. */
const DURATION_WORDS = new Set(['', 'none', 'received']);

/** Whether add/set accept this property on the menu (menus without a list accept anything). */
export function isKnownProperty(def: MenuDef, name: string): boolean {
  return !def.props || def.props.includes(name) || name === 'copy-from';
}

// ---- print -------------------------------------------------------------------

function project(view: RecordView, proplist: readonly string[] | undefined): Record<string, string> {
  if (!proplist) return { ...view };
  const out: Record<string, string> = {};
  for (const name of proplist) {
    const value = view[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function compile(table: MenuTable, ctx: CommandContext): (view: RecordView) => boolean {
  let query: (view: RecordView) => boolean;
  try {
    query = compileQuery(ctx.req.queries, table.def.booleans);
  } catch (err) {
    if (err instanceof QueryError) throw new RosTrap(err.message);
    throw err;
  }
  const where = ctx.req.where;
  return where ? (view) => query(view) && where(view) : query;
}

const print: Verb = async (table, ctx) => {
  const { state, faults } = ctx.sim;
  const { attrs, proplist } = ctx.req;
  const refusal = faults.printRefusal(table.path, attrs.has('count-only'));
  if (refusal) throw new RosTrap(refusal);
  const matches = compile(table, ctx);
  // a count of the whole menu is its size: no entry needs reading
  if (attrs.has('count-only') && ctx.req.queries.length === 0 && !ctx.req.where && state.plainView(table))
    return { ret: String(table.size) };
  const views = (candidates(table, ctx) ?? table.list()).map((rec) => state.view(table, rec)).filter(matches);
  if (attrs.has('count-only')) return { ret: String(views.length) };
  const follow = attrs.has('follow') || attrs.has('follow-only');
  if (!attrs.has('follow-only')) for (const v of views) ctx.re(project(v, proplist));
  if (!follow) {
    if (views.length === 0 && state.caps.emptyReply) ctx.empty();
    return;
  }
  await streamChanges(table, ctx, matches);
};

/**
 * The only entries a print can match, when its query names values of the menu's indexed property
 * (`?name=a ?name=b ?#|`): the table finds them by value. Undefined when every entry must be tried.
 */
function candidates(table: MenuTable, ctx: CommandContext): SimRecord[] | undefined {
  const prop = table.indexedProp;
  if (prop === undefined || table.def.singleton || !ctx.sim.state.plainView(table)) return undefined;
  const values = requiredValues(ctx.req.queries, prop, table.def.booleans);
  return values && table.holding(prop, values);
}

/** `listen`, and `print follow`: one !re per change until /cancel. */
async function streamChanges(
  table: MenuTable,
  ctx: CommandContext,
  matches: (v: RecordView) => boolean,
): Promise<void> {
  const { state } = ctx.sim;
  const onChange = (kind: string, rec: SimRecord): void => {
    if (kind === 'remove') {
      ctx.re({ '.id': formatId(rec.id), '.dead': 'true' });
      return;
    }
    const view = state.view(table, rec);
    if (matches(view)) ctx.re(project(view, ctx.req.proplist));
  };
  table.on('change', onChange);
  try {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    table.off('change', onChange);
  }
}

const listen: Verb = (table, ctx) => streamChanges(table, ctx, compile(table, ctx));

// ---- writes ------------------------------------------------------------------

/** Validates and normalises the property attributes of add/set. */
function writableProps(table: MenuTable, ctx: CommandContext, current?: SimRecord): Record<string, string> {
  const { def } = table;
  const state = ctx.sim.state;
  const out: Record<string, string> = {};
  for (const [name, raw] of ctx.req.attrs) {
    if (CONTROL_ATTRS.has(name)) continue;
    if (def.readOnlyProps?.includes(name) || !isKnownProperty(def, name))
      throw new RosTrap(`unknown parameter ${name}`);
    let value = raw;
    if (def.booleans?.includes(name)) {
      const b = normaliseBool(raw);
      if (b === undefined) throw new RosTrap(`value of ${name} must be yes or no`);
      value = b;
    }
    if (def.durations?.includes(name) && !DURATION_WORDS.has(value)) {
      const seconds = parseDuration(value);
      if (seconds === undefined) throw new RosTrap(`value of ${name} is not a valid time interval`);
      value = formatDuration(seconds);
    }
    const ref = def.refs?.[name];
    if (ref && value !== '' && !ref.also?.includes(value) && !state.menu(ref.menu)?.findBy('name', value)) {
      throw new RosTrap(`input does not match any value of ${name}`);
    }
    out[name] = value;
  }
  const unique = def.unique;
  if (unique && out[unique.prop] !== undefined) {
    const clash = table.findBy(unique.prop, out[unique.prop] ?? '');
    if (clash && clash !== current) throw new RosTrap(unique.message);
  }
  return out;
}

/** Records named by `.id` / `numbers` (a comma list of ids or names). */
function targets(table: MenuTable, ctx: CommandContext): SimRecord[] {
  const ref = ctx.req.attrs.get('.id') ?? ctx.req.attrs.get('numbers') ?? ctx.req.attrs.get('number');
  if (ref === undefined || ref === '') throw new RosTrap('missing value(s) of argument(s) .id');
  const recs = ref.split(',').map((r) => table.resolve(r.trim()));
  // all-or-nothing: a bad id in the list fails the whole command (sim choice)
  if (recs.some((r) => r === undefined)) throw noSuchItem();
  return recs as SimRecord[];
}

function ordered(table: MenuTable, props: Record<string, string>): Record<string, string> {
  const order = table.def.fieldOrder ?? [];
  const keys = Object.keys(props).sort((a, b) => rank(order, a) - rank(order, b));
  return Object.fromEntries(keys.map((k) => [k, props[k] ?? '']));
}

function rank(order: readonly string[], key: string): number {
  const i = order.indexOf(key);
  // disabled/dynamic and comment print last on RouterOS
  if (i >= 0) return i;
  if (key === 'comment') return 1001;
  return ['dynamic', 'disabled', 'default', 'invalid', 'running'].includes(key) ? 1000 : 500;
}

const add: Verb = (table, ctx) => {
  const { def } = table;
  if (def.singleton || def.readOnly || def.noAdd) throw noSuchCommand();
  const given = writableProps(table, ctx);
  const missing = (def.required ?? []).filter((p) => !given[p]);
  if (missing.length > 0) throw new RosTrap(`missing value(s) of argument(s) ${missing.join(', ')}`);
  const before = placeBefore(table, ctx);
  const hook = MENU_HOOKS[table.path];
  const props = ordered(table, {
    ...def.defaults?.(ctx.sim.state.caps),
    ...(hook?.beforeAdd?.(ctx, given) ?? given),
  });
  const rec = hook?.insert ? hook.insert(ctx, props) : table.insert(props, undefined, before);
  hook?.afterWrite?.(ctx.sim.state, rec);
  return { ret: formatId(rec.id) };
};

/** The entry `add place-before=` names, on menus whose entries are ordered rules. */
function placeBefore(table: MenuTable, ctx: CommandContext): SimRecord | undefined {
  const ref = ctx.req.attrs.get('place-before');
  if (ref === undefined) return undefined;
  if (!table.def.ordered) throw new RosTrap('unknown parameter place-before');
  const rec = table.resolve(ref);
  if (!rec) throw noSuchItem();
  return rec;
}

const set: Verb = (table, ctx) => {
  const { def } = table;
  if (def.readOnly) throw noSuchCommand();
  // a rule is moved with `move`, not `set`
  if (ctx.req.attrs.has('place-before')) throw new RosTrap('unknown parameter place-before');
  const hook = MENU_HOOKS[table.path];
  const recs = def.singleton ? [table.single()] : targets(table, ctx);
  for (const rec of recs) {
    const props = writableProps(table, ctx, rec);
    if (hook?.beforeSet) hook.beforeSet(ctx, rec, props);
    table.update(rec, props);
    hook?.afterWrite?.(ctx.sim.state, rec);
  }
};

const remove: Verb = (table, ctx) => {
  const { def } = table;
  if (def.singleton || def.noRemove || (def.readOnly && !def.removable)) throw noSuchCommand();
  const recs = targets(table, ctx);
  for (const rec of recs) {
    const refusal = def.undeletable?.(rec);
    if (refusal) throw new RosTrap(refusal);
  }
  const hook = MENU_HOOKS[table.path];
  for (const rec of recs) {
    if (hook?.beforeRemove && !hook.beforeRemove(ctx, rec)) continue;
    table.delete(rec);
    hook?.afterRemove?.(ctx, rec);
  }
};

const toggle =
  (disabled: 'true' | 'false'): Verb =>
  (table, ctx) => {
    if (table.def.singleton || table.def.readOnly || !table.def.booleans?.includes('disabled'))
      throw noSuchCommand();
    for (const rec of targets(table, ctx)) table.update(rec, { disabled });
  };

const unset: Verb = (table, ctx) => {
  if (table.def.readOnly) throw noSuchCommand();
  const name = ctx.req.attrs.get('value-name');
  if (!name) throw new RosTrap('missing value(s) of argument(s) value-name');
  if (table.def.readOnlyProps?.includes(name)) throw new RosTrap(`unknown parameter ${name}`);
  const recs = table.def.singleton ? [table.single()] : targets(table, ctx);
  for (const rec of recs) table.unsetProp(rec, name);
};

const get: Verb = (table, ctx) => {
  const name = ctx.req.attrs.get('value-name');
  const rec = table.def.singleton ? table.single() : targets(table, ctx)[0];
  if (!rec) throw noSuchItem();
  const view = ctx.sim.state.view(table, rec);
  if (!name)
    return {
      ret: Object.entries(view)
        .map(([k, v]) => `${k}=${v}`)
        .join(';'),
    };
  const value = view[name];
  if (value === undefined) throw new RosTrap(`no such property ${name}`);
  return { ret: value };
};

const comment: Verb = (table, ctx) => {
  if (table.def.readOnly) throw noSuchCommand();
  for (const rec of targets(table, ctx)) table.update(rec, { comment: ctx.req.attrs.get('comment') ?? '' });
};

export const GENERIC_VERBS: Readonly<Record<string, Verb>> = {
  print,
  getall: print,
  listen,
  add,
  set,
  remove,
  enable: toggle('false'),
  disable: toggle('true'),
  unset,
  get,
  comment,
};

export function genericVerb(table: MenuTable, verb: string): CommandHandler | undefined {
  const fn = GENERIC_VERBS[verb];
  return fn ? (ctx) => fn(table, ctx) : undefined;
}

// ---- per-menu behaviour ----------------------------------------------------------

interface MenuHook {
  beforeAdd?: (ctx: CommandContext, props: Record<string, string>) => Record<string, string>;
  insert?: (ctx: CommandContext, props: Record<string, string>) => SimRecord;
  beforeSet?: (ctx: CommandContext, rec: SimRecord, props: Record<string, string>) => void;
  afterWrite?: (state: RouterState, rec: SimRecord) => void;
  /** Returns false to answer !done without removing (fault injection, or the record is removed elsewhere). */
  beforeRemove?: (ctx: CommandContext, rec: SimRecord) => boolean;
  afterRemove?: (ctx: CommandContext, rec: SimRecord) => void;
}

const MAC = /^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/;

/** A virtual interface (wireguard, veth) is an interface like any other: /interface lists it. */
function listInterface(
  state: RouterState,
  rec: SimRecord,
  type: string,
  mtu: string,
  disabled = 'false',
): void {
  const ifaces = state.table('/interface');
  const name = rec.props.name ?? '';
  if (ifaces.findBy('name', name)) return;
  ifaces.insert({ name, type, mtu, 'actual-mtu': mtu, running: 'true', disabled });
}

/** WireGuard keys are real X25519 keys so a peer config built from them is valid. */
function wireguardKeys(privateKey?: string): { 'private-key': string; 'public-key': string } {
  if (privateKey) {
    const raw = Buffer.from(privateKey, 'base64');
    if (raw.length !== 32) throw new RosTrap('invalid private key');
    const der = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), raw]);
    const pub = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
    const x = pub.export({ format: 'jwk' }).x ?? '';
    return { 'private-key': privateKey, 'public-key': Buffer.from(x, 'base64url').toString('base64') };
  }
  const { privateKey: priv, publicKey: pub } = generateKeyPairSync('x25519');
  const d = priv.export({ format: 'jwk' }).d ?? '';
  const x = pub.export({ format: 'jwk' }).x ?? '';
  return {
    'private-key': Buffer.from(d, 'base64url').toString('base64'),
    'public-key': Buffer.from(x, 'base64url').toString('base64'),
  };
}

/** Actions of `/ip firewall nat`, the same on v6 and v7 for what is modelled. */
const NAT_ACTIONS = new Set([
  'accept',
  'add-dst-to-address-list',
  'add-src-to-address-list',
  'dst-nat',
  'jump',
  'log',
  'masquerade',
  'netmap',
  'passthrough',
  'redirect',
  'return',
  'same',
  'src-nat',
]);

function checkNatAction(props: Record<string, string>): void {
  if (props.action !== undefined && !NAT_ACTIONS.has(props.action))
    throw new RosTrap('input does not match any value of action');
}

function withPolicy(ctx: CommandContext, props: Record<string, string>): Record<string, string> {
  if (props.policy !== undefined)
    props.policy = normalisePolicy(ctx.sim.state.caps.userPolicies, props.policy);
  return props;
}

const RADIUS_SERVICES = new Set(['hotspot', 'login', 'ppp', 'wireless', 'dhcp', 'ipsec', 'dot1x']);

function checkRadiusProps(ctx: CommandContext, props: Record<string, string>): void {
  // require-message-auth arrived with the BlastRADIUS fix (7.15)
  if (props['require-message-auth'] !== undefined && !ctx.sim.state.caps.radiusRequireMessageAuth)
    throw new RosTrap('unknown parameter require-message-auth');
  const services = props.service;
  if (services !== undefined && services !== '') {
    for (const s of services.split(',')) {
      if (!RADIUS_SERVICES.has(s.trim())) throw new RosTrap('invalid value for argument service');
    }
  }
  for (const port of ['authentication-port', 'accounting-port']) {
    const v = props[port];
    if (v !== undefined && !(/^\d+$/.test(v) && Number(v) > 0 && Number(v) < 65536))
      throw new RosTrap(`invalid value for argument ${port}`);
  }
  const timeout = props.timeout;
  if (timeout !== undefined) {
    // a bare number is seconds, as everywhere in RouterOS time values
    const seconds = /^\d+$/.test(timeout) ? Number(timeout) : parseDuration(timeout);
    if (seconds === undefined || seconds <= 0) throw new RosTrap('invalid value for argument timeout');
  }
}

const MENU_HOOKS: Readonly<Record<string, MenuHook>> = {
  ...QOS_MENU_HOOKS,
  '/interface/ethernet': {
    beforeSet: (_ctx, _rec, props) => {
      const mac = props['mac-address'];
      if (mac !== undefined) {
        if (!MAC.test(mac)) throw new RosTrap('invalid value for argument mac-address');
        props['mac-address'] = mac.toUpperCase();
      }
    },
    // /interface shows the same MAC, as on the router
    afterWrite: (state, rec) => {
      const iface = state.table('/interface').findBy('name', rec.props.name ?? '');
      if (iface && rec.props['mac-address'])
        state.table('/interface').update(iface, { 'mac-address': rec.props['mac-address'] });
    },
  },
  '/interface/wireguard': {
    beforeAdd: (_ctx, props) => ({ ...props, ...wireguardKeys(props['private-key']) }),
    afterWrite: (state, rec) => listInterface(state, rec, 'wg', rec.props.mtu ?? '1420', rec.props.disabled),
  },
  '/interface/veth': {
    afterWrite: (state, rec) => listInterface(state, rec, 'veth', '1500'),
  },
  '/ip/firewall/nat': {
    beforeAdd: (_ctx, props) => {
      checkNatAction(props);
      return props;
    },
    beforeSet: (_ctx, _rec, props) => checkNatAction(props),
  },
  '/user/group': {
    beforeAdd: (ctx, props) => withPolicy(ctx, { policy: '', ...props }),
    beforeSet: (ctx, _rec, props) => void withPolicy(ctx, props),
    beforeRemove: (ctx, rec) => {
      checkGroupUnused(ctx.sim.state, rec);
      return true;
    },
  },
  '/ip/hotspot/user': {
    // stallAddsAfter: the add is answered with a new id as usual, and nothing is stored
    insert: (ctx, props) => {
      const users = ctx.sim.state.table('/ip/hotspot/user');
      return ctx.sim.faults.allowAdd() ? users.insert(props) : users.phantom(props);
    },
    beforeRemove: (ctx) => ctx.sim.faults.allowRemoval(),
    afterRemove: (ctx) => ctx.sim.faults.noteUserRemoved(),
  },
  '/ip/hotspot/active': {
    // logging a user out goes through the NAS: it removes the entry and sends accounting Stop
    beforeRemove: (ctx, rec) => {
      // stuckSessions: answered !done, and the session goes on
      if (!ctx.sim.faults.sessionStuck(rec.props.user ?? ''))
        void ctx.sim.nas.terminate(rec.id, 'Admin-Reset');
      return false;
    },
  },
  '/radius': {
    beforeAdd: (ctx, props) => {
      checkRadiusProps(ctx, props);
      return props;
    },
    beforeSet: (ctx, _rec, props) => checkRadiusProps(ctx, props),
  },

  '/file': {
    insert: (ctx, props) => {
      const name = props.name;
      if (!name) throw new RosTrap('missing value(s) of argument(s) name');
      if (props.type === 'directory') return ctx.sim.state.makeDirectory(name);
      try {
        return ctx.sim.state.writeFile(name, encodeWin1252(props.contents ?? ''));
      } catch {
        throw new RosTrap('not enough space');
      }
    },
    beforeSet: (ctx, rec, props) => {
      if (props.contents === undefined) return;
      try {
        ctx.sim.state.writeFile(rec.props.name ?? '', encodeWin1252(props.contents));
      } catch {
        throw new RosTrap('not enough space');
      }
      delete props.contents;
    },
  },
};
