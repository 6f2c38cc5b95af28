// The agent's reader of the reseller comments the local app writes: the real fleet's mess
// (trailing spaces, missing and unknown keys, another key order, accents, partial phones).
import { expect } from 'chai';
import {
  isResellerComment,
  parseResellerComment,
  sellerTag,
} from '../../../agent/commands/reseller-comment.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';

describe('reseller comment (agent)', () => {
  it('reads every field of a well-formed comment, movements oldest first', () => {
    const parsed = parseResellerComment(
      'tnr1|u=Awa|fn=Awa|ln=Diop|tel=77 123 45 67|em=awa.diop@gmail.com|bal=20000|com=10|cr=2026-06-23|' +
        'mv=txn_1785880447015_8nbgz:-4500:achat:9x 500F;txn_1786121836853_xlwyz :+10000:recharge',
    );
    expect(parsed).to.deep.include({
      login: 'Awa',
      first_name: 'Awa',
      last_name: 'Diop',
      phone: '77 123 45 67',
      email: 'awa.diop@gmail.com',
      balance: 20000,
      commission_rate: 10,
      created_on: '2026-06-23',
      warnings: [],
    });
    expect(parsed.movements).to.deep.equal([
      {
        id: 'txn_1785880447015_8nbgz',
        amount: -4500,
        kind: 'achat',
        note: '9x 500F',
        at: new Date(1785880447015).toISOString(),
      },
      // The trailing space of the id is trimmed: the trimmed id is the idempotency key.
      {
        id: 'txn_1786121836853_xlwyz',
        amount: 10000,
        kind: 'recharge',
        at: new Date(1786121836853).toISOString(),
      },
    ]);
  });

  const cases: [string, string, Record<string, unknown>][] = [
    [
      'keys in another order and an unknown key',
      'tnr1|bal=500|app=2.3.1|u=ibrahima|com=5',
      { balance: 500, login: 'ibrahima', commission_rate: 5 },
    ],
    [
      'accents and spaces in names',
      'tnr1|u=Aissatou|fn=Aïssatou|ln=Ba|fn2=x|bal=0',
      { first_name: 'Aïssatou', balance: 0 },
    ],
    [
      'a first name with spaces',
      'tnr1|u=cheikh tidiane|fn=Cheikh Tidiane|bal=7000',
      { first_name: 'Cheikh Tidiane', login: 'cheikh tidiane' },
    ],
    [
      'trailing spaces on values',
      'tnr1|u=FATOU |fn=Fatou |bal= 3000 |com= 7.5 ',
      { login: 'FATOU', first_name: 'Fatou', balance: 3000, commission_rate: 7.5 },
    ],
    ['a decimal commission with a comma', 'tnr1|bal=1|com=7,5', { commission_rate: 7.5 }],
    ['an empty phone and no e-mail', 'tnr1|u=x|tel=|bal=1', { balance: 1, created_on: null }],
    ['a partial phone kept as written', 'tnr1|tel=77-9|bal=1', { phone: '77-9' }],
    ['no creation date', 'tnr1|u=x|bal=1|mv=', { created_on: null, movements: [] }],
    ['a value holding "="', 'tnr1|em=a=b@x.sn|bal=1', { email: 'a=b@x.sn' }],
    ['leading spaces before the marker', '  tnr1|bal=42', { balance: 42 }],
  ];
  for (const [what, comment, expected] of cases) {
    it(`reads ${what}`, () => {
      const parsed = parseResellerComment(comment);
      expect(parsed).to.deep.include(expected);
      expect(parsed).to.not.have.property('phone', '');
    });
  }

  const bad: [string, string, Record<string, unknown>, RegExp][] = [
    ['a missing balance', 'tnr1|u=x|com=10', { balance: null }, /no bal/],
    ['a balance that is not a whole number', 'tnr1|bal=12.5', { balance: null }, /bal is not a whole number/],
    ['a commission over 100', 'tnr1|bal=1|com=150', { commission_rate: null }, /com is not a percentage/],
    ['an impossible creation date', 'tnr1|bal=1|cr=2026-02-30', { created_on: null }, /cr is not a date/],
    ['a movement id that is not txn_', 'tnr1|bal=1|mv=abc:+1:recharge', { movements: [] }, /not txn_/],
    [
      'a movement amount that is not a number',
      'tnr1|bal=1|mv=txn_1_a:beaucoup:recharge',
      { movements: [] },
      /not a whole number/,
    ],
    ['a part without a key', 'tnr1|bal=1|garbage', { balance: 1 }, /without a key/],
    ['a repeated key', 'tnr1|bal=1|bal=2', { balance: 1 }, /repeated/],
  ];
  for (const [what, comment, expected, warning] of bad) {
    it(`skips ${what} with a warning, never guessing`, () => {
      const parsed = parseResellerComment(comment);
      expect(parsed).to.deep.include(expected);
      expect(parsed.warnings.join('\n')).to.match(warning);
    });
  }

  it('keeps the first of a repeated movement id (trailing space or not) and skips empty items', () => {
    const parsed = parseResellerComment(
      'tnr1|bal=3|mv=txn_1785880447015_aaaaa:+1:recharge;;txn_1785880447015_aaaaa :+1:recharge;txn_x_b:+2:correction:geste: commercial;',
    );
    expect(parsed.movements.map((m) => [m.id, m.amount, m.note])).to.deep.equal([
      ['txn_1785880447015_aaaaa', 1, undefined],
      ['txn_x_b', 2, 'geste: commercial'],
    ]);
    expect(parsed.movements[1]!.at).to.equal(null);
    expect(parsed.warnings.join()).to.match(/repeated/);
  });

  it('recognises a reseller comment by its marker only', () => {
    expect(isResellerComment('tnr1|bal=1')).to.equal(true);
    for (const other of [
      undefined,
      '',
      'tnr1',
      'tnr2|bal=1',
      'vendu par awa',
      'x tnr1|bal=1',
      'TNR1|bal=1',
    ]) {
      expect(isResellerComment(other), String(other)).to.equal(false);
    }
  });

  it('reads seller tags as written, and nothing from comments that name no seller', () => {
    expect(sellerTag('vendu par Moussa')).to.equal('Moussa');
    expect(sellerTag('Vendu  par  cheikh tidiane ')).to.equal('cheikh tidiane');
    expect(sellerTag('vendu par Gérant')).to.equal('Gérant');
    expect(sellerTag('lot 3 | vendu par khady | 2026')).to.equal('khady');
    for (const none of [undefined, '', 'mikhmon', 'vc-123-11.09.26', 'vendu par ', 'tnr1|bal=1']) {
      expect(sellerTag(none), String(none)).to.equal(undefined);
    }
  });

  it('reads the whole simulated fleet exactly as the simulator seeded it', () => {
    const sim = new RouterSim({ serial: 'C4AD34AB12CD', version: '7.19', seed: { resellerFleet: true } });
    const truth = sim.seedReport.resellers;
    const users = sim.state.table('/ip/hotspot/user').list();
    const accounts = users.filter((u) => isResellerComment(u.props.comment));
    expect(accounts).to.have.length(9);
    let movements = 0;
    for (const r of truth) {
      const user = accounts.find((u) => u.props.name === r.routerName)!;
      const parsed = parseResellerComment(user.props.comment!);
      expect(parsed.warnings, r.routerName).to.deep.equal([]);
      expect(parsed.balance).to.equal(r.balance);
      expect(parsed.commission_rate).to.equal(r.commissionRate);
      expect(parsed.created_on).to.equal(r.createdOn || null);
      expect(parsed.first_name).to.equal(r.firstName);
      expect(parsed.phone).to.equal(r.phone || undefined);
      expect(parsed.movements.map((m) => [m.id, m.amount, m.kind])).to.deep.equal(
        r.movements.map((m) => [m.id.trim(), m.amount, m.kind]),
      );
      expect(parsed.movements.map((m) => m.at)).to.deep.equal(r.movements.map((m) => m.at.toISOString()));
      movements += parsed.movements.length;
    }
    expect(movements).to.equal(90);
    // Some ids did carry a trailing space on the router.
    expect(truth.some((r) => r.movements.some((m) => m.id.endsWith(' ')))).to.equal(true);
  });
});
