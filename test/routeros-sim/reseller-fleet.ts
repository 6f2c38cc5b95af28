// The reseller fleet a local-mode site accumulates (seed.resellerFleet): 9
// reseller accounts kept as hotspot users by the mobile app, each comment
// holding identity, balance and the last movements of its ledger (the app
// kept only the last 20, so the busiest reseller lost older ones), plus
// tickets tagged with reseller names and with names that are not resellers.
// Format: README.md, "Reseller accounts on the router". The returned truth
// lets a takeover test compare what the server imported with what was there.
import { Prng } from './prng.js';
import type { RouterState } from './router-state.js';

export const RESELLER_COMMENT_PREFIX = 'tnr1';
/** The app kept this many movements in a comment, dropping the oldest. */
export const ROUTER_LEDGER_LIMIT = 20;
/** User profile of the reseller accounts (they are not meant to browse). */
export const RESELLER_PROFILE = 'revendeur';
/** Tags found in ticket comments that name no reseller (platform, administrators). */
export const NON_RESELLER_TAGS = ['admin', 'Gérant', 'ticketnet'];

export type MovementKind = 'recharge' | 'achat' | 'correction';

export interface ResellerMovement {
  /** As written on the router: `txn_<ms>_<random>`, sometimes with a trailing space. */
  id: string;
  /** Signed XOF amount: credit positive, debit negative. */
  amount: number;
  kind: MovementKind;
  note?: string;
  at: Date;
}

export interface ResellerTruth {
  /** Hotspot user name of the account (and the `u=` field), as the app typed it. */
  routerName: string;
  firstName: string;
  lastName: string;
  phone: string;
  email: string;
  balance: number;
  commissionRate: number;
  /** YYYY-MM-DD, or '' when the comment has no creation date. */
  createdOn: string;
  disabled: boolean;
  /** Movements still in the comment, oldest first. */
  movements: ResellerMovement[];
  /** Older movements the router no longer has. */
  lostMovements: number;
  /** Name used in "vendu par <name>" tags on this reseller's tickets. */
  tag: string;
}

interface Spec {
  name: string;
  first: string;
  last: string;
  phone: string;
  email?: string;
  movements: number;
  lost?: number;
  commission: number;
  disabled?: boolean;
  zeroBalance?: boolean;
  noCreationDate?: boolean;
  /** Fields in another order plus an unknown key, as an older app version wrote them. */
  oldWriter?: boolean;
  tag: string;
}

// 20+17+14+12+9+7+5+4+2 = 90 movements on the router
const FLEET: readonly Spec[] = [
  {
    name: 'Awa',
    first: 'Awa',
    last: 'Diop',
    phone: '77 123 45 67',
    email: 'awa.diop@gmail.com',
    movements: 20,
    lost: 13,
    commission: 10,
    tag: 'awa',
  },
  {
    name: 'moussa',
    first: 'Moussa',
    last: 'Ndiaye',
    phone: '+221 76 555 12 34',
    movements: 17,
    commission: 8,
    tag: 'Moussa',
  },
  {
    name: 'FATOU ',
    first: 'Fatou',
    last: 'Sow',
    phone: '70 88',
    movements: 14,
    commission: 10,
    tag: 'fatou',
  },
  {
    name: 'ibrahima',
    first: 'Ibrahima',
    last: 'Fall',
    phone: '',
    movements: 12,
    commission: 5,
    oldWriter: true,
    tag: 'ibrahima',
  },
  {
    name: 'Aissatou',
    first: 'Aïssatou',
    last: 'Ba',
    phone: '78 432 1',
    movements: 9,
    commission: 7.5,
    tag: 'aissatou',
  },
  {
    name: 'cheikh tidiane',
    first: 'Cheikh Tidiane',
    last: 'Gueye',
    phone: '776001122',
    movements: 7,
    commission: 10,
    noCreationDate: true,
    tag: 'cheikh tidiane',
  },
  {
    name: 'mariama',
    first: 'Mariama',
    last: 'Diallo',
    phone: '77-9',
    movements: 5,
    commission: 10,
    disabled: true,
    tag: 'mariama',
  },
  {
    name: 'Ousmane',
    first: 'Ousmane',
    last: 'Faye',
    phone: '+22170',
    email: 'ousfaye@yahoo.fr',
    movements: 4,
    commission: 0,
    zeroBalance: true,
    tag: 'ousmane',
  },
  {
    name: 'khady',
    first: 'Khady',
    last: 'Mbaye',
    phone: '76 210 44 0',
    movements: 2,
    commission: 10,
    tag: 'Khady',
  },
];

const DAY = 86_400_000;
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const TICKET_PRICES = [500, 1000, 2000, 5000];

export function seedResellerFleet(state: RouterState, serial: string): ResellerTruth[] {
  const rng = new Prng(`${serial}:reseller-fleet`);
  // whole days, so a router seeded twice the same day carries the same movement ids
  const now = Math.floor(state.identity.now().getTime() / DAY) * DAY;
  const profiles = state.table('/ip/hotspot/user/profile');
  if (!profiles.findBy('name', RESELLER_PROFILE)) {
    profiles.insert({
      name: RESELLER_PROFILE,
      'idle-timeout': 'none',
      'keepalive-timeout': '2m',
      'status-autorefresh': '1m',
      'shared-users': '1',
      'rate-limit': '64k/64k',
      'add-mac-cookie': 'false',
      'transparent-proxy': 'false',
      default: 'false',
    });
  }
  const users = state.table('/ip/hotspot/user');
  const truths: ResellerTruth[] = [];
  for (const spec of FLEET) {
    const truth = buildReseller(spec, rng, now);
    truths.push(truth);
    users.insert({
      server: 'all',
      name: spec.name,
      password: String(rng.int(1000, 9999)),
      profile: RESELLER_PROFILE,
      uptime: '0s',
      'bytes-in': '0',
      'bytes-out': '0',
      'packets-in': '0',
      'packets-out': '0',
      dynamic: 'false',
      // the app suspends a reseller by disabling the account
      disabled: String(spec.disabled === true),
      comment: formatResellerComment(truth, spec.oldWriter === true),
    });
  }
  seedTaggedTickets(state, rng, truths);
  return truths;
}

function buildReseller(spec: Spec, rng: Prng, now: number): ResellerTruth {
  const total = spec.movements + (spec.lost ?? 0);
  const created = now - (total * 4 + rng.int(10, 60)) * DAY;
  const all: ResellerMovement[] = [];
  let balance = 0;
  let at = created + rng.int(1, 3) * DAY;
  for (let i = 0; i < total; i++) {
    at += rng.int(1, 3) * DAY + rng.int(0, DAY - 1);
    let amount: number;
    let kind: MovementKind;
    let note: string | undefined;
    if (spec.zeroBalance && i === total - 1) {
      // the last purchase used up the whole balance (a recharge came just before)
      amount = -balance;
      kind = 'achat';
      note = 'solde epuise';
    } else if (balance < 2000 || rng.chance(0.3) || (spec.zeroBalance && i === total - 2)) {
      amount = rng.pick([2000, 5000, 10000, 15000, 25000]);
      kind = 'recharge';
    } else if (rng.chance(0.1)) {
      amount = rng.chance(0.5) ? 500 : -500;
      kind = 'correction';
      note = amount > 0 ? 'geste commercial' : 'erreur saisie';
    } else {
      const price = rng.pick(TICKET_PRICES.filter((p) => p <= balance));
      const qty = Math.max(1, Math.min(Math.floor(balance / price), rng.int(1, 20)));
      amount = -price * qty;
      kind = 'achat';
      note = `${qty}x ${price}F`;
    }
    balance += amount;
    // 1 in 8 ids got a trailing space from the app's text field
    const id = `txn_${at}_${rng.string(5, ID_ALPHABET)}${rng.chance(0.125) ? ' ' : ''}`;
    all.push({ id, amount, kind, ...(note ? { note } : {}), at: new Date(at) });
  }
  return {
    routerName: spec.name,
    firstName: spec.first,
    lastName: spec.last,
    phone: spec.phone,
    email: spec.email ?? '',
    balance,
    commissionRate: spec.commission,
    createdOn: spec.noCreationDate ? '' : new Date(created).toISOString().slice(0, 10),
    disabled: spec.disabled === true,
    movements: all.slice(-ROUTER_LEDGER_LIMIT),
    lostMovements: Math.max(0, all.length - ROUTER_LEDGER_LIMIT),
    tag: spec.tag,
  };
}

/** The comment the app writes on a reseller account (README: "Reseller accounts on the router"). */
export function formatResellerComment(r: ResellerTruth, oldWriter = false): string {
  const mv = r.movements
    .map((m) =>
      [m.id, `${m.amount > 0 ? '+' : ''}${m.amount}`, m.kind, ...(m.note ? [m.note] : [])].join(':'),
    )
    .join(';');
  const fields: Array<[string, string]> = [
    ['u', r.routerName],
    ['fn', r.firstName],
    ['ln', r.lastName],
    ['tel', r.phone],
    ...(r.email ? [['em', r.email] as [string, string]] : []),
    ['bal', String(r.balance)],
    ['com', String(r.commissionRate)],
    ...(r.createdOn ? [['cr', r.createdOn] as [string, string]] : []),
    ['mv', mv],
  ];
  if (oldWriter) {
    // an older app version: balance first, an extra key, identity after
    fields.sort((a, b) => (a[0] === 'bal' ? -1 : b[0] === 'bal' ? 1 : 0));
    fields.splice(1, 0, ['app', '2.3.1']);
  }
  return [RESELLER_COMMENT_PREFIX, ...fields.map(([k, v]) => `${k}=${v}`)].join('|');
}

/** Tickets sold by resellers ("vendu par <tag>"), by non-resellers, and plain mikhmon tickets. */
function seedTaggedTickets(state: RouterState, rng: Prng, truths: ResellerTruth[]): void {
  const users = state.table('/ip/hotspot/user');
  const profiles = state
    .table('/ip/hotspot/user/profile')
    .list()
    .map((p) => p.props.name ?? '')
    .filter((n) => n !== 'default' && n !== RESELLER_PROFILE);
  const add = (comment: string): void => {
    let code = rng.string(7, 'abcdefghijkmnpqrstuvwxyz23456789');
    while (users.findBy('name', code)) code = rng.string(7, 'abcdefghijkmnpqrstuvwxyz23456789');
    const profile = profiles.length > 0 ? rng.pick(profiles) : 'default';
    users.insert({
      server: 'all',
      name: code,
      password: code,
      profile,
      'limit-uptime': profile.split('-')[0] ?? '1h',
      uptime: '0s',
      'bytes-in': '0',
      'bytes-out': '0',
      'packets-in': '0',
      'packets-out': '0',
      dynamic: 'false',
      disabled: 'false',
      comment,
    });
  };
  for (const r of truths) for (let i = rng.int(2, 4); i > 0; i--) add(`vendu par ${r.tag}`);
  for (const tag of NON_RESELLER_TAGS) add(`vendu par ${tag}`);
  for (let i = 0; i < 3; i++) add('mikhmon');
}
