// The protocol entries of the migration and return commands: which params the controller may send
// (anything else is BAD_PARAMS before it is stored or run) and which outputs it accepts.
import { expect } from 'chai';
import {
  COMMANDS,
  HOTSPOT_USERS_REMOVE_MAX,
  HOTSPOT_USERS_RESTORE_BATCH,
  parseCommandOutput,
  parseCommandParams,
} from '../../../protocol/index.js';
import type { CommandName } from '../../../protocol/index.js';
import { CATALOGUE_NAMES, routerCatalogue } from '../../../agent/commands/command-catalogue.js';
import { SILENT_LOGGER } from '../../../agent/logger.js';

const MIGRATION_COMMANDS = [
  'hotspot.users.names',
  'hotspot.users.count',
  'hotspot.users.remove',
  'hotspot.profiles.restore',
  'hotspot.users.restore',
] as const;

const user = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  profile: '1h-500F',
  disabled: false,
  ...extra,
});
const users = (n: number) => Array.from({ length: n }, (_, i) => user(`v${i}`));
const names = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);

describe('protocol: migration and return commands', () => {
  it('are in the catalogue, announced in hello, each with a handler and a default timeout', () => {
    for (const name of MIGRATION_COMMANDS) {
      expect(COMMANDS[name].defaultTimeoutSeconds, name).to.be.greaterThan(0);
      expect(CATALOGUE_NAMES, name).to.include(name);
      expect(routerCatalogue(SILENT_LOGGER)[name], name).to.be.a('function');
    }
    expect([...CATALOGUE_NAMES].sort()).to.deep.equal(Object.keys(routerCatalogue(SILENT_LOGGER)).sort());
    expect(HOTSPOT_USERS_RESTORE_BATCH).to.equal(40);
    expect(HOTSPOT_USERS_REMOVE_MAX).to.equal(1000);
  });

  const good: Array<[CommandName, unknown]> = [
    ['hotspot.users.names', {}],
    ['hotspot.users.count', {}],
    ['hotspot.users.remove', { names: ['abc'] }],
    ['hotspot.users.remove', { names: ['default-trial', 'Abc', 'abc', 'x'.repeat(200)] }],
    ['hotspot.users.remove', { names: names(HOTSPOT_USERS_REMOVE_MAX) }],
    ['hotspot.profiles.restore', { profiles: [{ name: '1h-500F' }] }],
    [
      'hotspot.profiles.restore',
      {
        profiles: [{ name: '1h', rate_limit: '1M/2M', shared_users: 1, session_timeout: 0 }, { name: '1d' }],
      },
    ],
    ['hotspot.users.restore', { users: [user('a')] }],
    ['hotspot.users.restore', { users: users(HOTSPOT_USERS_RESTORE_BATCH) }],
    [
      'hotspot.users.restore',
      {
        users: [
          user('a', {
            password: 'pw',
            comment: 'vendu par awa',
            limit_uptime: 3600,
            limit_bytes_total: 1e9,
            disabled: true,
            // an export's usage counters may come along
            uptime_seconds: 120,
            bytes_in: 5,
            bytes_out: 6,
          }),
        ],
      },
    ],
  ];
  for (const [name, params] of good) {
    it(`accepts ${name} params ${JSON.stringify(params).slice(0, 120)}`, () => {
      const check = parseCommandParams(name, params);
      expect(check.ok, JSON.stringify(check)).to.equal(true);
      if (check.ok) expect(check.value.params).to.deep.equal(params);
    });
  }

  const refused: Array<[string, CommandName, unknown]> = [
    ['an unknown param', 'hotspot.users.names', { all: true }],
    ['an unknown param', 'hotspot.users.count', { where: 'x' }],
    ['no names', 'hotspot.users.remove', { names: [] }],
    ['names missing', 'hotspot.users.remove', {}],
    ['too many names', 'hotspot.users.remove', { names: names(HOTSPOT_USERS_REMOVE_MAX + 1) }],
    ['an empty name', 'hotspot.users.remove', { names: [''] }],
    ['a name over 200 characters', 'hotspot.users.remove', { names: ['x'.repeat(201)] }],
    ['a duplicate name', 'hotspot.users.remove', { names: ['a', 'b', 'a'] }],
    ['a name that is not text', 'hotspot.users.remove', { names: [42] }],
    ['no profiles', 'hotspot.profiles.restore', { profiles: [] }],
    ['501 profiles', 'hotspot.profiles.restore', { profiles: names(501).map((n) => ({ name: n })) }],
    ['shared_users 0', 'hotspot.profiles.restore', { profiles: [{ name: 'p', shared_users: 0 }] }],
    [
      'a negative session timeout',
      'hotspot.profiles.restore',
      { profiles: [{ name: 'p', session_timeout: -1 }] },
    ],
    [
      'a fractional session timeout',
      'hotspot.profiles.restore',
      { profiles: [{ name: 'p', session_timeout: 1.5 }] },
    ],
    ['an unknown profile field', 'hotspot.profiles.restore', { profiles: [{ name: 'p', idle_timeout: 60 }] }],
    ['a duplicate profile', 'hotspot.profiles.restore', { profiles: [{ name: 'p' }, { name: 'p' }] }],
    ['no users', 'hotspot.users.restore', { users: [] }],
    ['41 users', 'hotspot.users.restore', { users: users(HOTSPOT_USERS_RESTORE_BATCH + 1) }],
    ['a user without profile', 'hotspot.users.restore', { users: [{ name: 'a', disabled: false }] }],
    ['a user without disabled', 'hotspot.users.restore', { users: [{ name: 'a', profile: 'p' }] }],
    ['a duplicate user', 'hotspot.users.restore', { users: [user('a'), user('b'), user('a')] }],
    ['a negative limit', 'hotspot.users.restore', { users: [user('a', { limit_uptime: -1 })] }],
    ['a limit given as text', 'hotspot.users.restore', { users: [user('a', { limit_uptime: '1h' })] }],
    ['an unknown user field', 'hotspot.users.restore', { users: [user('a', { server: 'hotspot1' })] }],
  ];
  for (const [what, name, params] of refused) {
    it(`refuses ${name} with ${what} (BAD_PARAMS)`, () => {
      const check = parseCommandParams(name, params);
      if (check.ok) throw new Error('expected a fault');
      expect(check.fault).to.include({ code: 'BAD_PARAMS', retryable: false });
    });
  }

  const removed = { count_before: 10, count_after: 8, requested: 2, absent: 1, spared: 1 };
  const goodOutputs: Array<[string, CommandName, unknown]> = [
    ['names', 'hotspot.users.names', { names: ['a', 'b'], count: 2 }],
    ['no names', 'hotspot.users.names', { names: [], count: 0 }],
    ['a count', 'hotspot.users.count', { count: 1 }],
    ['a removal between two counts', 'hotspot.users.remove', removed],
    [
      'a removal whose first count trapped',
      'hotspot.users.remove',
      { count_before: null, count_after: null, count_error: 'busy', requested: 0, absent: 0, spared: 0 },
    ],
    [
      'a removal whose second count trapped',
      'hotspot.users.remove',
      { ...removed, count_after: null, count_error: 'busy' },
    ],
    ['a profiles restore', 'hotspot.profiles.restore', { added: 1, updated: 0 }],
    ['a users restore', 'hotspot.users.restore', { added: 0, updated: 40 }],
    [
      'an export with usage counters',
      'hotspot.users.export',
      { users: [user('a', { uptime_seconds: 60, bytes_in: 1, bytes_out: 2 })], count: 1 },
    ],
  ];
  for (const [what, name, output] of goodOutputs) {
    it(`accepts ${what} as ${name} output`, () => {
      const check = parseCommandOutput(name, output);
      expect(check.ok, JSON.stringify(check)).to.equal(true);
    });
  }

  const badOutputs: Array<[string, CommandName, unknown]> = [
    ['a count that is not the number of names', 'hotspot.users.names', { names: ['a'], count: 2 }],
    ['an empty name', 'hotspot.users.names', { names: [''], count: 1 }],
    ['a negative count', 'hotspot.users.count', { count: -1 }],
    ['a null count without its error', 'hotspot.users.remove', { ...removed, count_after: null }],
    ['an error with both counts', 'hotspot.users.remove', { ...removed, count_error: 'busy' }],
    [
      'a removal attempted without a first count',
      'hotspot.users.remove',
      { ...removed, count_before: null, count_after: null, count_error: 'busy' },
    ],
    ['a removal without spared', 'hotspot.users.remove', { ...removed, spared: undefined }],
    ['a restore without updated', 'hotspot.users.restore', { added: 1 }],
    ['negative usage', 'hotspot.users.export', { users: [user('a', { bytes_in: -1 })], count: 1 }],
  ];
  for (const [what, name, output] of badOutputs) {
    it(`refuses ${what} as ${name} output (AGENT_ERROR)`, () => {
      const check = parseCommandOutput(name, output);
      if (check.ok) throw new Error('expected a fault');
      expect(check.fault.code).to.equal('AGENT_ERROR');
    });
  }
});
