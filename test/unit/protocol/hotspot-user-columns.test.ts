// Hotspot users in columns (`hotspot.users.columns`): the users rebuilt are the export's, field for
// field and key for key; a column output that does not hold together is refused as the agent's error.
import { expect } from 'chai';
import {
  hotspotUserColumnsSchema,
  HOTSPOT_USER_SCHEMA,
  parseCommandOutput,
  usersFromColumns,
  usersToColumns,
  type HotspotUserColumns,
} from '../../../protocol/index.js';

// Each user as a checked export has it (keys in the catalogue's order, absent fields left out).
const USERS = [
  { name: 'k7p2qd', password: 'k7p2qd', profile: '1h-500F', limit_uptime: 3600, disabled: false },
  {
    name: 'x9m4ta',
    password: '4821',
    profile: '1d-2000F',
    comment: 'vendu par awa',
    limit_uptime: 86400,
    limit_bytes_total: 2_000_000_000,
    disabled: true,
    uptime_seconds: 5395,
    bytes_in: 301_589_269,
    bytes_out: 620_260_785,
  },
  { name: 'sans-mot', profile: 'default', disabled: false },
  { name: 'true', password: 'true', profile: 'default', comment: '', disabled: false },
  { name: 'Élève 12', password: 'élève 12', profile: 'default', disabled: false, bytes_in: 1 },
].map((u) => HOTSPOT_USER_SCHEMA.parse(u));

const columnsOf = (overrides: Partial<HotspotUserColumns>) => ({ ...usersToColumns(USERS), ...overrides });

describe('hotspot users in columns', () => {
  it('round trip: the users come back equal, keys in the catalogue order', () => {
    const columns = usersToColumns(USERS);
    const back = usersFromColumns(hotspotUserColumnsSchema().parse(JSON.parse(JSON.stringify(columns))));
    expect(back).to.deep.equal(USERS);
    expect(JSON.stringify(back)).to.equal(JSON.stringify(USERS));
    expect(usersFromColumns(usersToColumns([]))).to.deep.equal([]);
  });

  it('a password equal to the name travels as `true`, another as itself, none as null', () => {
    const { password } = usersToColumns(USERS);
    expect(password).to.deep.equal([true, '4821', null, true, 'élève 12']);
  });

  it('the catalogue checks the output: columns of one length, the count, the types', () => {
    const good = { users: usersToColumns(USERS), profiles: [{ name: 'default' }], count: USERS.length };
    const parsed = parseCommandOutput('hotspot.users.columns', good);
    expect(parsed.ok).to.equal(true);

    const refused: [string, unknown][] = [
      ['a column shorter than the names', { ...good, users: columnsOf({ bytes_in: [null, null] }) }],
      [
        'a column longer than the names',
        { ...good, users: columnsOf({ disabled: [...good.users.disabled, false] }) },
      ],
      ['a count that is not the number of users', { ...good, count: USERS.length + 1 }],
      [
        'a password that is a number',
        { ...good, users: columnsOf({ password: [1, '4821', null, true, 'x'] as never }) },
      ],
      [
        'a password marked false',
        { ...good, users: columnsOf({ password: [false, '4821', null, true, 'x'] as never }) },
      ],
      [
        'an empty name',
        { ...good, users: columnsOf({ name: ['', 'x9m4ta', 'sans-mot', 'true', 'Élève 12'] }) },
      ],
      ['a negative counter', { ...good, users: columnsOf({ bytes_out: [-1, null, null, null, null] }) }],
      ['a column missing', { ...good, users: { ...good.users, comment: undefined } }],
      ['users as rows', { ...good, users: USERS }],
    ];
    for (const [why, output] of refused) {
      const check = parseCommandOutput('hotspot.users.columns', output);
      expect(check.ok, why).to.equal(false);
      if (!check.ok) expect(check.fault.code, why).to.equal('AGENT_ERROR');
    }
  });

  it('refuses more users than a router export may hold', () => {
    const many = Array.from({ length: 100_001 }, (_, i) => `v${i}`);
    const columns = {
      name: many,
      password: many.map(() => true),
      profile: many.map(() => 'default'),
      comment: many.map(() => null),
      limit_uptime: many.map(() => null),
      limit_bytes_total: many.map(() => null),
      disabled: many.map(() => false),
      uptime_seconds: many.map(() => null),
      bytes_in: many.map(() => null),
      bytes_out: many.map(() => null),
    };
    expect(hotspotUserColumnsSchema().safeParse(columns).success).to.equal(false);
    for (const key of Object.keys(columns) as (keyof typeof columns)[])
      columns[key] = columns[key].slice(1) as never;
    expect(hotspotUserColumnsSchema().safeParse(columns).success).to.equal(true);
  });
});
