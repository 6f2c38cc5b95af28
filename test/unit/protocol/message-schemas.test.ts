import { expect } from 'chai';
import {
  MESSAGE_SCHEMAS,
  MESSAGE_SENDERS,
  MESSAGE_TYPES,
  commandTtlMs,
  isMessageType,
} from '../../../protocol/index.js';
import type { MessageBody, MessageType } from '../../../protocol/index.js';
import { AGENT, COMMAND_ID, SAMPLE_BODIES, SID } from './fixtures.js';

type Case = [MessageType, string, Record<string, unknown>];

const s = SAMPLE_BODIES;

const accepted: Case[] = [
  ['enrol', 'without facts', { ...s.enrol, facts: undefined }],
  ['hello', 'with no capabilities', { ...s.hello, capabilities: [] }],
  ['command', 'with an unknown but well-formed name', { ...s.command, name: 'queue.apply_set' }],
  ['command', 'with empty params', { ...s.command, params: {} }],
  ['command', 'with a time to live', { ...s.command, ttl_ms: 30_000 }],
  ['command', 'with a time to live of 0 (already late)', { ...s.command, ttl_ms: 0 }],
  ['result', 'DONE without output', { id: COMMAND_ID, status: 'DONE' }],
  [
    'result',
    'FAILED with a fault',
    { id: COMMAND_ID, status: 'FAILED', fault: { code: 'ROUTER_TIMEOUT', message: 'slow', retryable: true } },
  ],
  ['report', 'of kind facts', { ...s.report, kind: 'facts' }],
  ['report', 'of kind event', { ...s.report, kind: 'event' }],
  ['radius', 'without peer', { id: 'r-2', packet: s.radius.packet }],
  ['error', 'carrying a protocol error code', { code: 'REPLAYED_SEQUENCE', message: '' }],
];

const refused: Case[] = [
  ['challenge', 'without nonce', { ...s.challenge, nonce: undefined }],
  ['challenge', 'with a short nonce', { ...s.challenge, nonce: Buffer.alloc(8).toString('base64') }],
  [
    'challenge',
    'with a 31-byte key',
    { ...s.challenge, controller_key: Buffer.alloc(31).toString('base64') },
  ],
  ['challenge', 'with a local time', { ...s.challenge, server_time: '2025-03-01 12:00:00' }],
  ['enrol', 'with a code not normalised', { ...s.enrol, code: 'abcd-2345' }],
  ['enrol', 'with a code too short', { ...s.enrol, code: 'AB1' }],
  ['enrol', 'without agent_key', { ...s.enrol, agent_key: undefined }],
  ['enrol', 'with facts of the wrong type', { ...s.enrol, facts: { uptime_seconds: -1 } }],
  ['hello', 'with an agent_id that is not a UUID', { ...s.hello, agent_id: 'agent-1' }],
  ['hello', 'with capabilities as text', { ...s.hello, capabilities: 'router.facts' }],
  ['hello', 'without agent_version', { ...s.hello, agent_version: undefined }],
  ['welcome', 'with a heartbeat of 0', { ...s.welcome, heartbeat_seconds: 0 }],
  ['welcome', 'without allocation_id', { ...s.welcome, allocation_id: undefined }],
  ['command', 'with params as an array', { ...s.command, params: [] }],
  ['command', 'with an upper-case name', { ...s.command, name: 'Router.Facts' }],
  ['command', 'without deadline', { ...s.command, deadline: undefined }],
  ['command', 'with a negative time to live', { ...s.command, ttl_ms: -1 }],
  ['command', 'with a fractional time to live', { ...s.command, ttl_ms: 1.5 }],
  ['command', 'with a time to live past a timer', { ...s.command, ttl_ms: 2 ** 31 }],
  ['ack', 'with an id that is not a UUID', { id: '42' }],
  ['result', 'FAILED without fault', { id: COMMAND_ID, status: 'FAILED' }],
  [
    'result',
    'DONE with a fault',
    { id: COMMAND_ID, status: 'DONE', fault: { code: 'AGENT_ERROR', message: 'x', retryable: false } },
  ],
  ['result', 'with an unknown status', { id: COMMAND_ID, status: 'PENDING' }],
  [
    'result',
    'with a fault code outside the list',
    { id: COMMAND_ID, status: 'FAILED', fault: { code: 'OOPS', message: 'x', retryable: false } },
  ],
  [
    'result',
    'with a fault missing retryable',
    { id: COMMAND_ID, status: 'FAILED', fault: { code: 'AGENT_ERROR', message: 'x' } },
  ],
  ['report', 'of an unknown kind', { ...s.report, kind: 'log' }],
  ['report', 'with data as an array', { ...s.report, data: [1] }],
  ['report_ack', 'with no ids', { ids: [] }],
  ['report_ack', 'with a non-UUID id', { ids: ['x'] }],
  ['ping', 'with t as text', { t: '1' }],
  ['pong', 'with a negative t', { t: -1 }],
  ['error', 'with a code outside the list', { code: 'TEAPOT', message: 'x' }],
  [
    'radius',
    'with a packet shorter than a RADIUS header',
    { id: 'r', packet: Buffer.alloc(19).toString('base64') },
  ],
  ['radius', 'with a packet that is not base64', { id: 'r', packet: 'not base64!' }],
];

describe('protocol message schemas', () => {
  for (const type of MESSAGE_TYPES) {
    it(`accepts the sample ${type}`, () =>
      expect(MESSAGE_SCHEMAS[type].safeParse(s[type]).success).to.equal(true));
  }
  for (const [type, name, body] of accepted) {
    it(`accepts ${type} ${name}`, () => expect(MESSAGE_SCHEMAS[type].safeParse(body).success).to.equal(true));
  }
  for (const [type, name, body] of refused) {
    it(`refuses ${type} ${name}`, () =>
      expect(MESSAGE_SCHEMAS[type].safeParse(body).success).to.equal(false));
  }

  it('names a sender for every message type', () => {
    expect(Object.keys(MESSAGE_SENDERS).sort()).to.deep.equal([...MESSAGE_TYPES].sort());
  });

  const typeNames: Array<[unknown, boolean]> = [
    ['challenge', true],
    ['report_ack', true],
    ['Challenge', false],
    ['toString', false],
    ['__proto__', false],
    [1, false],
  ];
  for (const [name, known] of typeNames) {
    it(`isMessageType(${String(name)}) is ${known}`, () => expect(isMessageType(name)).to.equal(known));
  }

  it('keeps the nonce and key samples valid (guards the fixtures)', () => {
    expect(Buffer.from(SID, 'base64')).to.have.length(32);
    expect(Buffer.from(AGENT.publicKey, 'base64')).to.have.length(32);
  });
});

describe('commandTtlMs', () => {
  const cases: [string, Record<string, unknown>, string, number][] = [
    [
      'ttl_ms when sent',
      { ttl_ms: 5_000, deadline: '2020-01-01T00:00:00.000Z' },
      '2030-01-01T00:00:00.000Z',
      5_000,
    ],
    [
      'else deadline less signing time',
      { deadline: '2025-03-01T12:02:00.000Z' },
      '2025-03-01T12:00:00.000Z',
      120_000,
    ],
    ['never below 0', { deadline: '2025-03-01T12:00:00.000Z' }, '2025-03-01T12:00:01.000Z', 0],
    ['never past a timer', { deadline: '2026-03-01T12:00:00.000Z' }, '2025-03-01T12:00:00.000Z', 2 ** 31 - 1],
  ];
  for (const [name, fields, signedAt, expected] of cases) {
    it(name, () => {
      expect(commandTtlMs({ ...s.command, ...fields } as MessageBody<'command'>, signedAt)).to.equal(
        expected,
      );
    });
  }
});
