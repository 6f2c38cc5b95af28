// Queues and the firewall menus they depend on, as MikroTik's manuals describe them
// (help.mikrotik.com: Queues, Queue Tree, Queue Types, Mangle, Filter, Address-lists, FastTrack):
// queue types with the built-in ones, the queue tree whose `parent` is `global`, an interface or
// another tree queue and whose `queue` is a type, mangle and filter actions and their required
// values, address lists refusing a duplicate entry, and interface byte counters. The default
// configuration's FastTrack rule is seeded, unmarked, as a router has it out of the box.
import { RosTrap } from './command-types.js';
import type { CommandContext } from './command-types.js';
import type { MenuDef, SimRecord } from './menu-table.js';
import type { RouterState } from './router-state.js';

// Queue kinds of /queue type; fq-codel and cake arrived with RouterOS 7.
const KINDS_V6 = ['bfifo', 'mq-pfifo', 'none', 'pcq', 'pfifo', 'red', 'sfq'];
const KINDS_V7 = [...KINDS_V6, 'fq-codel', 'cake'];
const PCQ_CLASSIFIERS = new Set(['src-address', 'dst-address', 'src-port', 'dst-port']);

/** The built-in queue types (kind and, for PCQ, the classifier); they cannot be removed. */
const BUILT_IN_TYPES: readonly Record<string, string>[] = [
  { name: 'default', kind: 'pfifo', 'pfifo-limit': '50' },
  { name: 'ethernet-default', kind: 'pfifo', 'pfifo-limit': '50' },
  { name: 'wireless-default', kind: 'sfq' },
  { name: 'synchronous-default', kind: 'red' },
  { name: 'hotspot-default', kind: 'sfq' },
  {
    name: 'pcq-upload-default',
    kind: 'pcq',
    'pcq-rate': '0',
    'pcq-limit': '50',
    'pcq-classifier': 'src-address',
  },
  {
    name: 'pcq-download-default',
    kind: 'pcq',
    'pcq-rate': '0',
    'pcq-limit': '50',
    'pcq-classifier': 'dst-address',
  },
  { name: 'only-hardware-queue', kind: 'none' },
  { name: 'multi-queue-ethernet-default', kind: 'mq-pfifo' },
  { name: 'default-small', kind: 'pfifo', 'pfifo-limit': '10' },
];

const QUEUE_TYPE_PROPS = [
  'name',
  'kind',
  'pfifo-limit',
  'bfifo-limit',
  'mq-pfifo-limit',
  'sfq-perturb',
  'sfq-allot',
  'pcq-rate',
  'pcq-limit',
  'pcq-classifier',
  'pcq-total-limit',
  'pcq-burst-rate',
  'pcq-burst-threshold',
  'pcq-burst-time',
  'pcq-src-address-mask',
  'pcq-dst-address-mask',
  'pcq-src-address6-mask',
  'pcq-dst-address6-mask',
  'red-limit',
  'red-min-threshold',
  'red-max-threshold',
  'red-burst',
  'red-avg-packet',
];

const QUEUE_TREE_PROPS = [
  'name',
  'parent',
  'packet-mark',
  'limit-at',
  'max-limit',
  'priority',
  'queue',
  'burst-limit',
  'burst-threshold',
  'burst-time',
  'bucket-size',
  'comment',
  'disabled',
];

const RULE_MATCHERS = [
  'chain',
  'action',
  'protocol',
  'src-address',
  'dst-address',
  'src-address-list',
  'dst-address-list',
  'src-port',
  'dst-port',
  'in-interface',
  'out-interface',
  'in-interface-list',
  'out-interface-list',
  'connection-state',
  'connection-mark',
  'packet-mark',
  'routing-mark',
  'hotspot',
  'jump-target',
  'log',
  'log-prefix',
  'place-before',
  'comment',
  'disabled',
];
const MANGLE_PROPS = [
  ...RULE_MATCHERS,
  'new-packet-mark',
  'new-connection-mark',
  'new-routing-mark',
  'passthrough',
  'address-list',
  'address-list-timeout',
];
const FILTER_PROPS = [...RULE_MATCHERS, 'reject-with', 'address-list', 'address-list-timeout', 'hw-offload'];

const MANGLE_ACTIONS = new Set([
  'accept',
  'add-dst-to-address-list',
  'add-src-to-address-list',
  'change-dscp',
  'change-mss',
  'change-ttl',
  'clear-df',
  'fasttrack-connection',
  'jump',
  'log',
  'mark-connection',
  'mark-packet',
  'mark-routing',
  'passthrough',
  'return',
  'route',
  'set-priority',
  'sniff-pc',
  'sniff-tzsp',
  'strip-ipv4-options',
]);
const FILTER_ACTIONS = new Set([
  'accept',
  'add-dst-to-address-list',
  'add-src-to-address-list',
  'drop',
  'fasttrack-connection',
  'jump',
  'log',
  'passthrough',
  'reject',
  'return',
  'tarpit',
]);
const CONNECTION_STATES = new Set(['established', 'related', 'new', 'invalid', 'untracked']);

const rule = (table: 'mangle' | 'filter', props: string[]): MenuDef => ({
  path: `/ip/firewall/${table}`,
  props,
  ordered: true,
  booleans: ['invalid', 'dynamic', 'disabled', 'log', 'passthrough', 'hw-offload'],
  required: ['chain'],
  defaults: () => ({
    action: 'accept',
    ...(table === 'mangle' ? { passthrough: 'true' } : {}),
    bytes: '0',
    packets: '0',
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
  }),
  fieldOrder: [
    'chain',
    'action',
    'new-packet-mark',
    'passthrough',
    'connection-state',
    'src-address-list',
    'dst-address-list',
    'in-interface',
    'out-interface',
  ],
});

export const QOS_MENU_DEFS: readonly MenuDef[] = [
  {
    path: '/queue/type',
    props: QUEUE_TYPE_PROPS,
    booleans: ['default'],
    required: ['name', 'kind'],
    unique: { prop: 'name', message: 'failure: queue type with such name already exists' },
    undeletable: (rec) =>
      rec.props.default === 'true' ? 'failure: can not remove builtin queue type' : undefined,
    readOnlyProps: ['default'],
    defaults: () => ({ default: 'false' }),
    fieldOrder: ['name', 'kind', 'pcq-rate', 'pcq-limit', 'pcq-classifier'],
  },
  {
    path: '/queue/tree',
    props: QUEUE_TREE_PROPS,
    booleans: ['invalid', 'disabled'],
    required: ['name', 'parent'],
    unique: { prop: 'name', message: 'failure: already have queue with such name' },
    refs: { queue: { menu: '/queue/type' } },
    readOnlyProps: ['invalid', 'rate', 'bytes', 'packets', 'dropped'],
    defaults: () => ({
      'packet-mark': '',
      'limit-at': '0',
      queue: 'default-small',
      priority: '8',
      'max-limit': '0',
      'burst-limit': '0',
      'burst-threshold': '0',
      'burst-time': '0s',
      invalid: 'false',
      disabled: 'false',
    }),
    fieldOrder: ['name', 'parent', 'packet-mark', 'limit-at', 'queue', 'priority', 'max-limit'],
  },
  rule('mangle', MANGLE_PROPS),
  rule('filter', FILTER_PROPS),
  {
    path: '/ip/firewall/address-list',
    props: ['list', 'address', 'timeout', 'comment', 'disabled'],
    firstId: 0x9,
    booleans: ['dynamic', 'disabled'],
    required: ['list', 'address'],
    readOnlyProps: ['dynamic', 'creation-time'],
    defaults: () => ({ dynamic: 'false', disabled: 'false' }),
    fieldOrder: ['list', 'address', 'creation-time'],
  },
];

/** The paths above: menu-defs.ts leaves these to this file. */
export const QOS_PATHS = new Set(QOS_MENU_DEFS.map((d) => d.path));

// ---- values ----------------------------------------------------------------------

/** A rate as RouterOS takes it (`10M`, `512k`, `2000000`), in bits per second; undefined when not one. */
export function parseRate(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([kKMG])?$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { k: 1e3, K: 1e3, M: 1e6, G: 1e9 }[m[2] as 'k'] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

const IPV4 = /^(\d{1,3})(\.\d{1,3}){3}$/;
function validAddress(text: string): boolean {
  const [ip = '', bits, extra] = text.split('/');
  const range = ip.split('-');
  const ipOk = (s: string) => IPV4.test(s) && s.split('.').every((o) => Number(o) <= 255);
  if (extra !== undefined) return false;
  if (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= 32)) return false;
  if (range.length === 2) return bits === undefined && ipOk(range[0]!) && ipOk(range[1]!);
  // a DNS name is also an address-list entry (resolved by the router)
  return ipOk(ip) || (bits === undefined && /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(ip));
}

// ---- hooks -----------------------------------------------------------------------

function checkTree(ctx: CommandContext, props: Record<string, string>, self?: SimRecord): void {
  const state = ctx.sim.state;
  const parent = props.parent;
  if (parent !== undefined) {
    const known =
      parent === 'global' ||
      state.table('/interface').findBy('name', parent) !== undefined ||
      state.table('/queue/tree').findBy('name', parent) !== undefined;
    if (!known || (self && parent === self.props.name))
      throw new RosTrap('input does not match any value of parent');
  }
  for (const name of ['limit-at', 'max-limit', 'burst-limit', 'burst-threshold']) {
    const v = props[name];
    if (v === undefined) continue;
    const bits = parseRate(v);
    if (bits === undefined) throw new RosTrap(`invalid value for argument ${name}`);
    props[name] = String(bits);
  }
  const priority = props.priority;
  if (priority !== undefined && !/^[1-8]$/.test(priority))
    throw new RosTrap('value of priority out of range (1..8)');
  if (props['bucket-size'] !== undefined && state.caps.version.major < 7)
    throw new RosTrap('unknown parameter bucket-size');
}

function checkType(ctx: CommandContext, props: Record<string, string>): void {
  const kinds = ctx.sim.state.caps.version.major >= 7 ? KINDS_V7 : KINDS_V6;
  if (props.kind !== undefined && !kinds.includes(props.kind))
    throw new RosTrap('input does not match any value of kind');
  const classifier = props['pcq-classifier'];
  if (classifier !== undefined && classifier.split(',').some((c) => !PCQ_CLASSIFIERS.has(c)))
    throw new RosTrap('input does not match any value of pcq-classifier');
  if (props['pcq-rate'] !== undefined) {
    const bits = parseRate(props['pcq-rate']);
    if (bits === undefined) throw new RosTrap('invalid value for argument pcq-rate');
    props['pcq-rate'] = String(bits);
  }
}

function checkRule(
  ctx: CommandContext,
  table: 'mangle' | 'filter',
  props: Record<string, string>,
  current?: Record<string, string>,
): void {
  const actions = table === 'mangle' ? MANGLE_ACTIONS : FILTER_ACTIONS;
  const merged = { ...current, ...props };
  if (props.action !== undefined && !actions.has(props.action))
    throw new RosTrap('input does not match any value of action');
  if (
    props['connection-state'] !== undefined &&
    props['connection-state'].split(',').some((s) => !CONNECTION_STATES.has(s.replace(/^!/, '')))
  )
    throw new RosTrap('input does not match any value of connection-state');
  if (merged.action === 'mark-packet' && !merged['new-packet-mark'])
    throw new RosTrap('new-packet-mark must be specified');
  if (merged.action === 'mark-connection' && !merged['new-connection-mark'])
    throw new RosTrap('new-connection-mark must be specified');
  // an interface matcher must name an interface the router has (a leading ! negates it)
  for (const name of ['in-interface', 'out-interface']) {
    const v = props[name];
    if (v !== undefined && v !== '' && !ctx.sim.state.table('/interface').findBy('name', v.replace(/^!/, '')))
      throw new RosTrap(`input does not match any value of ${name}`);
  }
  if (props['hw-offload'] !== undefined && ctx.sim.state.caps.version.major < 7)
    throw new RosTrap('unknown parameter hw-offload');
}

function checkListEntry(ctx: CommandContext, props: Record<string, string>, self?: SimRecord): void {
  if (props.address !== undefined && !validAddress(props.address))
    throw new RosTrap('invalid value for argument address');
  const list = props.list ?? self?.props.list;
  const address = props.address ?? self?.props.address;
  const clash = ctx.sim.state
    .table('/ip/firewall/address-list')
    .list()
    .find((r) => r !== self && r.props.list === list && r.props.address === address);
  if (clash) throw new RosTrap('failure: already have such entry');
}

export const QOS_MENU_HOOKS = {
  '/queue/type': {
    beforeAdd: (ctx: CommandContext, props: Record<string, string>) => (checkType(ctx, props), props),
    beforeSet: (ctx: CommandContext, _rec: SimRecord, props: Record<string, string>) => checkType(ctx, props),
  },
  '/queue/tree': {
    beforeAdd: (ctx: CommandContext, props: Record<string, string>) => (checkTree(ctx, props), props),
    beforeSet: (ctx: CommandContext, rec: SimRecord, props: Record<string, string>) =>
      checkTree(ctx, props, rec),
    // a queue whose parent goes away is invalid until it has one again
    afterRemove: (ctx: CommandContext, rec: SimRecord) => {
      const tree = ctx.sim.state.table('/queue/tree');
      for (const child of tree.list())
        if (child.props.parent === rec.props.name) tree.update(child, { invalid: 'true' });
    },
  },
  '/ip/firewall/mangle': {
    beforeAdd: (ctx: CommandContext, props: Record<string, string>) => (
      checkRule(ctx, 'mangle', props),
      props
    ),
    beforeSet: (ctx: CommandContext, rec: SimRecord, props: Record<string, string>) =>
      checkRule(ctx, 'mangle', props, rec.props),
  },
  '/ip/firewall/filter': {
    beforeAdd: (ctx: CommandContext, props: Record<string, string>) => (
      checkRule(ctx, 'filter', props),
      props
    ),
    beforeSet: (ctx: CommandContext, rec: SimRecord, props: Record<string, string>) =>
      checkRule(ctx, 'filter', props, rec.props),
  },
  '/ip/firewall/address-list': {
    beforeAdd: (ctx: CommandContext, props: Record<string, string>) => (checkListEntry(ctx, props), props),
    beforeSet: (ctx: CommandContext, rec: SimRecord, props: Record<string, string>) =>
      checkListEntry(ctx, props, rec),
  },
};

// ---- seed and traffic ------------------------------------------------------------

/** Built-in queue types, the default configuration's forward rules with FastTrack, interface counters. */
export function seedQos(state: RouterState): void {
  const types = state.table('/queue/type');
  for (const t of BUILT_IN_TYPES) types.insert({ ...t, default: 'true' });
  const filter = state.table('/ip/firewall/filter');
  const base = {
    bytes: '0',
    packets: '0',
    invalid: 'false',
    dynamic: 'false',
    disabled: 'false',
    log: 'false',
    'log-prefix': '',
  };
  filter.insert({
    chain: 'forward',
    action: 'fasttrack-connection',
    'connection-state': 'established,related',
    ...(state.caps.version.major >= 7 ? { 'hw-offload': 'true' } : {}),
    ...base,
    comment: 'defconf: fasttrack',
  });
  filter.insert({
    chain: 'forward',
    action: 'accept',
    'connection-state': 'established,related,untracked',
    ...base,
    comment: 'defconf: accept established,related, untracked',
  });
  for (const iface of state.table('/interface').list()) {
    state
      .table('/interface')
      .update(iface, { 'rx-byte': iface.props['rx-byte'] ?? '0', 'tx-byte': iface.props['tx-byte'] ?? '0' });
  }
}

/** Traffic through an interface: its byte counters grow, as `/interface print` shows them. */
export function addInterfaceTraffic(
  state: RouterState,
  name: string,
  rxBytes: number,
  txBytes: number,
): void {
  const iface = state.table('/interface').findBy('name', name);
  if (!iface) throw new Error(`no interface ${name}`);
  state.table('/interface').update(iface, {
    'rx-byte': String(Number(iface.props['rx-byte'] ?? 0) + rxBytes),
    'tx-byte': String(Number(iface.props['tx-byte'] ?? 0) + txBytes),
  });
}
