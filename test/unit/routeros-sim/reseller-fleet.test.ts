// seed.resellerFleet: the router side of the takeover (9 resellers, 90
// movements, at most 20 per reseller), read back with a reader written from
// the README's description of the comment format.
import { expect } from 'chai';
import { NON_RESELLER_TAGS, ROUTER_LEDGER_LIMIT } from '../../routeros-sim/reseller-fleet.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import { SERIAL } from '../../integration/routeros-sim/sim-helpers.js';

interface ParsedReseller {
  name: string;
  fields: Map<string, string>;
  movements: Array<{ id: string; amount: number; kind: string; note?: string }>;
}

/** The README's format: "tnr1|k=v|...", mv = "id:amount:kind[:note];..." */
function parseComment(name: string, comment: string): ParsedReseller | undefined {
  const [marker, ...parts] = comment.split('|');
  if (marker !== 'tnr1') return undefined;
  const fields = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf('=');
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const movements = (fields.get('mv') ?? '')
    .split(';')
    .filter(Boolean)
    .map((m) => {
      const [id = '', amount = '', kind = '', note] = m.split(':');
      return { id, amount: Number(amount), kind, ...(note ? { note } : {}) };
    });
  return { name, fields, movements };
}

const normalise = (s: string): string => s.toLowerCase().replace(/\s+/g, '');

describe('routeros-sim reseller fleet seed', () => {
  // One fixed router clock: the fleet's dates count back from the router's day, so two sims built
  // on either side of midnight would otherwise differ.
  const now = () => new Date('2026-11-25T23:59:59.900Z');
  const sim = new RouterSim({ serial: SERIAL, version: '7.19', now, seed: { resellerFleet: true } });
  const users = sim.state.table('/ip/hotspot/user').list();
  const resellers = users
    .map((u) => parseComment(u.props.name ?? '', u.props.comment ?? ''))
    .filter((r): r is ParsedReseller => r !== undefined);

  it('holds 9 reseller accounts and 90 movements, at most 20 per reseller', () => {
    expect(resellers).to.have.length(9);
    const counts = resellers.map((r) => r.movements.length);
    expect(counts.reduce((a, b) => a + b, 0)).to.equal(90);
    expect(Math.max(...counts)).to.equal(ROUTER_LEDGER_LIMIT);
    // the busiest reseller lost older movements to the 20-line cap
    const truth = sim.seedReport.resellers;
    expect(truth.find((t) => t.movements.length === ROUTER_LEDGER_LIMIT)?.lostMovements).to.be.greaterThan(0);
  });

  it('writes movement ids as txn_<timestamp>_<random>, some with a trailing space', () => {
    const ids = resellers.flatMap((r) => r.movements.map((m) => m.id));
    for (const id of ids) expect(id).to.match(/^txn_\d{13}_[a-z0-9]{5} ?$/);
    expect(ids.filter((id) => id.endsWith(' ')).length).to.be.greaterThan(0);
    expect(new Set(ids.map((id) => id.trim())).size).to.equal(90);
  });

  it('matches the seed report: identity, balance, and an opening balance that is never negative', () => {
    for (const truth of sim.seedReport.resellers) {
      const parsed = resellers.find((r) => r.name === truth.routerName);
      expect(parsed, truth.routerName).to.not.equal(undefined);
      expect(parsed?.fields.get('u')).to.equal(truth.routerName);
      expect(parsed?.fields.get('fn')).to.equal(truth.firstName);
      expect(Number(parsed?.fields.get('bal'))).to.equal(truth.balance);
      expect(parsed?.movements.map((m) => m.id)).to.deep.equal(truth.movements.map((m) => m.id));
      const kept = parsed?.movements.reduce((sum, m) => sum + m.amount, 0) ?? 0;
      expect(truth.balance - kept).to.be.at.least(0);
      if (truth.lostMovements === 0) expect(kept).to.equal(truth.balance);
    }
    // realistic mess: partial phones, a reseller without creation date, an old field order with an extra key
    expect(resellers.map((r) => r.fields.get('tel'))).to.include.members(['70 88', '']);
    expect(resellers.filter((r) => !r.fields.has('cr'))).to.have.length(1);
    expect(resellers.find((r) => r.fields.has('app'))?.fields.get('bal')).to.be.a('string');
    expect(sim.state.table('/ip/hotspot/user').findBy('name', 'mariama')?.props.disabled).to.equal('true');
  });

  it('tags tickets with reseller names and with names that are not resellers', () => {
    const known = new Set(resellers.map((r) => normalise(r.name)));
    const tags = users
      .map((u) => /^vendu par (.+)$/.exec(u.props.comment ?? '')?.[1])
      .filter((t): t is string => t !== undefined);
    const resellerTagged = tags.filter((t) => known.has(normalise(t)));
    const strangers = [...new Set(tags.filter((t) => !known.has(normalise(t))))];
    expect(new Set(resellerTagged.map(normalise)).size).to.equal(9);
    expect(strangers).to.include.members(NON_RESELLER_TAGS);
    expect(users.filter((u) => u.props.comment === 'mikhmon').length).to.be.greaterThan(0);
  });

  it('is off by default and the same for the same serial', () => {
    const plain = new RouterSim({ serial: SERIAL, version: '7.19' });
    const plainComments = plain.state
      .table('/ip/hotspot/user')
      .list()
      .map((u) => u.props.comment ?? '');
    expect(plainComments.filter((c) => c.startsWith('tnr1|'))).to.have.length(0);
    expect(plain.seedReport.resellers).to.deep.equal([]);
    const twin = new RouterSim({ serial: SERIAL, version: '7.19', now, seed: { resellerFleet: true } });
    const comments = (s: RouterSim): string[] =>
      s.state
        .table('/ip/hotspot/user')
        .list()
        .map((u) => u.props.comment ?? '')
        .filter((c) => c.startsWith('tnr1|'));
    expect(comments(twin)).to.deep.equal(comments(sim));
  });
});
