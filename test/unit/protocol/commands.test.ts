import { expect } from 'chai';
import {
  COMMANDS,
  FAULT_CODES,
  isKnownCommand,
  parseCommandOutput,
  parseCommandParams,
  changesRouter,
  redactParams,
  REDACTED,
} from '../../../protocol/index.js';
import type { CommandName, FaultCode } from '../../../protocol/index.js';
import { BACKUP_OUTPUT } from './fixtures.js';

const FACTS = {
  serial: 'HEX0123ABC',
  identity: 'Site-A',
  model: 'RB951Ui-2HnD',
  routeros_version: '6.49.10',
  architecture: 'mipsbe',
  board_name: 'hAP',
  free_hdd_bytes: 1024,
  total_hdd_bytes: 16384,
  uptime_seconds: 3600,
};

const USERS_OUTPUT = {
  users: [
    { name: 'v1', password: 'p', profile: '1h', limit_uptime: 3600, disabled: false },
    { name: 'v2', profile: 'default', comment: 'ticketnet:x', limit_bytes_total: 1e9, disabled: true },
  ],
  profiles: [{ name: '1h', rate_limit: '2M/4M', shared_users: 1, session_timeout: 3600 }],
  count: 2,
};

describe('protocol command catalogue', () => {
  const names: Array<[unknown, boolean]> = [
    ['router.facts', true],
    ['router.ping', true],
    ['hotspot.users.export', true],
    ['backup.save', true],
    ['router.reboot', false],
    ['Router.Facts', false],
    ['toString', false],
    ['__proto__', false],
    ['constructor', false],
    [undefined, false],
  ];
  for (const [name, known] of names) {
    it(`isKnownCommand(${String(name)}) is ${known}`, () => expect(isKnownCommand(name)).to.equal(known));
  }

  it('gives every command a positive default timeout', () => {
    for (const spec of Object.values(COMMANDS)) expect(spec.defaultTimeoutSeconds).to.be.greaterThan(0);
  });

  const goodParams: Array<[string, unknown]> = [
    ['router.facts', {}],
    ['router.ping', {}],
    ['hotspot.users.export', {}],
    ['hotspot.users.export', { include_profiles: true }],
    ['backup.save', {}],
    ['backup.save', { name: 'before-migration_2025.03' }],
  ];
  for (const [name, params] of goodParams) {
    it(`accepts ${name} params ${JSON.stringify(params)}`, () => {
      const check = parseCommandParams(name, params);
      expect(check).to.deep.equal({ ok: true, value: { name, params } });
    });
  }

  const badParams: Array<[string, unknown, FaultCode]> = [
    ['router.reboot', {}, 'UNKNOWN_COMMAND'],
    ['hasOwnProperty', {}, 'UNKNOWN_COMMAND'],
    ['router.facts', { verbose: true }, 'BAD_PARAMS'],
    ['router.facts', null, 'BAD_PARAMS'],
    ['hotspot.users.export', { include_profiles: 'yes' }, 'BAD_PARAMS'],
    ['backup.save', { name: '../etc/passwd' }, 'BAD_PARAMS'],
    ['backup.save', { name: '' }, 'BAD_PARAMS'],
    ['backup.save', { name: 'x'.repeat(65) }, 'BAD_PARAMS'],
  ];
  for (const [name, params, code] of badParams) {
    it(`refuses ${name} params ${JSON.stringify(params)} with ${code}`, () => {
      const check = parseCommandParams(name, params);
      if (check.ok) throw new Error('expected a fault');
      expect(check.fault.code).to.equal(code);
      expect(check.fault.retryable).to.equal(false);
    });
  }

  it('narrows params by command name', () => {
    const check = parseCommandParams('backup.save', { name: 'nightly' });
    if (!check.ok || check.value.name !== 'backup.save') throw new Error('expected backup.save');
    // Compiles only because the name narrows params to backup.save's.
    expect(check.value.params.name).to.equal('nightly');
  });

  const goodOutputs: Array<[CommandName, unknown]> = [
    ['router.facts', FACTS],
    ['router.ping', { rtt_ms: 3.5 }],
    ['hotspot.users.export', USERS_OUTPUT],
    ['hotspot.users.export', { users: [], count: 0 }],
    ['backup.save', BACKUP_OUTPUT],
  ];
  for (const [name, output] of goodOutputs) {
    it(`accepts a ${name} output`, () => expect(parseCommandOutput(name, output).ok).to.equal(true));
  }

  const badOutputs: Array<[string, CommandName, unknown]> = [
    ['facts without serial', 'router.facts', { ...FACTS, serial: undefined }],
    ['facts with negative free space', 'router.facts', { ...FACTS, free_hdd_bytes: -1 }],
    ['a negative rtt', 'router.ping', { rtt_ms: -1 }],
    ['a user count that is not the number of users', 'hotspot.users.export', { ...USERS_OUTPUT, count: 3 }],
    ['a user without disabled', 'hotspot.users.export', { users: [{ name: 'v', profile: 'p' }], count: 1 }],
    ['a backup whose size is wrong', 'backup.save', { ...BACKUP_OUTPUT, size: BACKUP_OUTPUT.size + 1 }],
    ['a backup whose sha256 is wrong', 'backup.save', { ...BACKUP_OUTPUT, sha256: '0'.repeat(64) }],
    [
      'a backup whose content was altered',
      'backup.save',
      { ...BACKUP_OUTPUT, content_base64: Buffer.from('RouterOS backup bytez').toString('base64') },
    ],
    ['a backup whose content is not base64', 'backup.save', { ...BACKUP_OUTPUT, content_base64: '***' }],
  ];
  for (const [label, name, output] of badOutputs) {
    it(`refuses ${label} as AGENT_ERROR`, () => {
      const check = parseCommandOutput(name, output);
      if (check.ok) throw new Error('expected a fault');
      expect(check.fault.code).to.equal('AGENT_ERROR');
    });
  }

  it('drops output fields the catalogue does not know', () => {
    const check = parseCommandOutput('router.ping', { rtt_ms: 1, jitter_ms: 2 });
    expect(check).to.deep.equal({ ok: true, value: { rtt_ms: 1 } });
  });

  it('lists the fault codes the agent may answer', () => {
    expect(FAULT_CODES).to.have.members([
      'ROUTER_UNREACHABLE',
      'ROUTER_TIMEOUT',
      'ROUTER_TRAP',
      'ROUTER_AUTH_FAILED',
      'UNKNOWN_COMMAND',
      'BAD_PARAMS',
      'DEADLINE_PASSED',
      'AGENT_ERROR',
      'NO_SPACE',
      'BACKUP_EMPTY',
    ]);
  });
});

describe('command catalogue: effects and secret params', () => {
  it('says which commands change the router; unknown names change nothing', () => {
    const changes = (Object.keys(COMMANDS) as CommandName[]).filter((name) => changesRouter(name));
    expect(changes.sort()).to.deep.equal([
      'bandwidth.apply',
      'equipment.pin',
      'equipment.unpin',
      'hotspot.active.remove',
      'hotspot.profiles.restore',
      'hotspot.users.remove',
      'hotspot.users.restore',
      'radius.disconnect',
      'router.login.set',
      'router.script.apply',
      'vpn.rescue.enable',
      'vpn.sstp.apply',
      'vpn.transport.remove',
      'vpn.wireguard.apply',
    ]);
    for (const name of ['system.reboot', 'toString', '__proto__', ''])
      expect(changesRouter(name), name).to.equal(false);
  });

  const cases: [string, unknown, unknown][] = [
    [
      'router.script.apply',
      { name: 'ticketnet-radius', source: 'x' },
      { name: 'ticketnet-radius', source: REDACTED },
    ],
    ['router.script.apply', { name: 'ticketnet-radius', source: REDACTED }, undefined],
    ['router.script.apply', { name: 'ticketnet-radius' }, undefined],
    ['hotspot.users.restore', { users: [{ name: 'v1', password: 'p' }] }, { users: REDACTED }],
    ['router.ping', {}, undefined],
    ['hotspot.users.remove', { names: ['v1'] }, undefined],
    ['system.reboot', { source: 'x' }, undefined],
    ['router.script.apply', null, undefined],
    ['router.script.apply', 'source', undefined],
    [
      'vpn.wireguard.apply',
      { interface: 'tn-wireguard', private_key: 'k', preshared_key: 'p', endpoint_port: 51820 },
      { interface: 'tn-wireguard', private_key: REDACTED, preshared_key: REDACTED, endpoint_port: 51820 },
    ],
    ['vpn.sstp.apply', { user: 'tn-1', password: 'pw' }, { user: 'tn-1', password: REDACTED }],
    ['vpn.probe', { interface: 'tn-sstp' }, undefined],
    [
      'router.login.set',
      { user: 'ticketnet', password: 'pw', api_port: 8728 },
      { user: REDACTED, password: REDACTED, api_port: 8728 },
    ],
  ];
  for (const [name, params, expected] of cases) {
    it(`redacts ${name} ${JSON.stringify(params)}`, () => {
      expect(redactParams(name, params)).to.deep.equal(expected);
    });
  }

  it('leaves the params it is given unchanged', () => {
    const params = { name: 'n', source: 's' };
    redactParams('router.script.apply', params);
    expect(params).to.deep.equal({ name: 'n', source: 's' });
  });
});
