// Shared sample data for the protocol tests: one valid body per message type and a raw signer
// that builds envelopes the library itself would refuse to sign (unknown types, bad bodies).
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import nacl from 'tweetnacl';
import {
  canonicalJson,
  generateKeyPair,
  generateSessionNonce,
  ProtocolError,
} from '../../../protocol/index.js';
import type { MessageBody, MessageType, ProtocolErrorCode } from '../../../protocol/index.js';

export const CONTROLLER = generateKeyPair();
export const AGENT = generateKeyPair();
export const SID = generateSessionNonce();
export const OTHER_SID = generateSessionNonce();
export const NOW = new Date('2025-03-01T12:00:00.000Z');

export const AGENT_ID = '2f1b6f0e-4a8c-4d2e-9b1a-0c3d5e7f9a11';
export const ALLOCATION_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
export const COMMAND_ID = '3b241101-e2bb-4255-8caf-4136c566a962';
export const REPORT_ID = '9a0f1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';

const backupContent = Buffer.from('RouterOS backup bytes');

/** A valid `backup.save` output: its size and sha256 match its content. */
export const BACKUP_OUTPUT = {
  file_name: 'ticketnet-1.backup',
  size: backupContent.length,
  sha256: createHash('sha256').update(backupContent).digest('hex'),
  content_base64: backupContent.toString('base64'),
};

/** Typed as a full map so that adding a message type without a sample fails to compile. */
export const SAMPLE_BODIES: { [T in MessageType]: MessageBody<T> } = {
  challenge: { nonce: SID, controller_key: CONTROLLER.publicKey, server_time: NOW.toISOString() },
  enrol: {
    code: 'ABCD2345',
    agent_key: AGENT.publicKey,
    agent_version: '0.1.0',
    facts: { serial: 'HEX0123ABC', model: 'RB951Ui-2HnD' },
  },
  hello: { agent_id: AGENT_ID, agent_version: '0.1.0', capabilities: ['router.facts', 'radius'] },
  welcome: {
    agent_id: AGENT_ID,
    allocation_id: ALLOCATION_ID,
    controller_key: CONTROLLER.publicKey,
    heartbeat_seconds: 30,
  },
  command: {
    id: COMMAND_ID,
    name: 'hotspot.users.export',
    params: { include_profiles: true },
    deadline: '2025-03-01T12:02:00.000Z',
  },
  ack: { id: COMMAND_ID },
  result: { id: COMMAND_ID, status: 'DONE', output: BACKUP_OUTPUT },
  report: { id: REPORT_ID, kind: 'telemetry', at: NOW.toISOString(), data: { cpu_load: 12 } },
  report_ack: { ids: [REPORT_ID] },
  ping: { t: NOW.getTime() },
  pong: { t: NOW.getTime() },
  error: { code: 'ENROL_CODE_INVALID', message: 'enrolment code refused' },
  radius: { id: 'r-1', packet: Buffer.alloc(20, 1).toString('base64'), peer: '192.168.88.1:1812' },
  stream_open: { id: COMMAND_ID, port: 20001, window: 262_144 },
  stream_opened: { id: COMMAND_ID, window: 262_144 },
  stream_data: { id: COMMAND_ID, data: Buffer.from('GET / HTTP/1.1\r\n\r\n').toString('base64') },
  stream_credit: { id: COMMAND_ID, bytes: 65_536 },
  stream_close: { id: COMMAND_ID, reason: 'end' },
  batch: {
    messages: [
      { type: 'ack', body: { id: COMMAND_ID } },
      { type: 'result', body: { id: COMMAND_ID, status: 'DONE', output: { rtt_ms: 2 } } },
    ],
  },
};

/** Who signs each sample in the round-trip tests. */
export function signerOf(type: MessageType): typeof CONTROLLER {
  return ['enrol', 'hello', 'ack', 'result', 'report', 'batch', 'stream_opened'].includes(type)
    ? AGENT
    : CONTROLLER;
}

/** Signs arbitrary envelope fields with tweetnacl directly, bypassing every check of signEnvelope. */
export function signRaw(fields: Record<string, unknown>, secretKey: string): string {
  const message = new TextEncoder().encode(canonicalJson(fields));
  const sig = nacl.sign.detached(message, Buffer.from(secretKey, 'base64'));
  return JSON.stringify({ ...fields, sig: Buffer.from(sig).toString('base64') });
}

/** Envelope fields (without sig) around `body`, for `signRaw`. */
export function rawFields(type: string, body: unknown, overrides: Record<string, unknown> = {}) {
  return { v: 1, type, sid: SID, seq: 1, ts: NOW.toISOString(), body, ...overrides };
}

/** Runs `fn` and asserts it throws a ProtocolError with `code`. */
export function expectProtocolError(fn: () => unknown, code: ProtocolErrorCode): ProtocolError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `expected ProtocolError ${code}`).to.be.instanceOf(ProtocolError);
  expect((thrown as ProtocolError).code).to.equal(code);
  return thrown as ProtocolError;
}
