// The handshake as the hub and the agent are meant to run it, through the public API only.
import { expect } from 'chai';
import {
  encodeEnvelope,
  generateKeyPair,
  generateSessionNonce,
  normaliseEnrolCode,
  openEnvelope,
  parseEnvelopeUnverified,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
} from '../../../protocol/index.js';
import { AGENT_ID, ALLOCATION_ID, expectProtocolError, NOW } from './fixtures.js';

const controllerKeys = generateKeyPair();

function challengeFrame(sid: string, secretKey = controllerKeys.secretKey): string {
  const body = { nonce: sid, controller_key: controllerKeys.publicKey, server_time: NOW.toISOString() };
  return encodeEnvelope(signEnvelope('challenge', body, { sid, seq: 1, secretKey, now: NOW }));
}

describe('protocol handshake', () => {
  it('enrols a new agent, which then pins the controller key', () => {
    const sid = generateSessionNonce();
    const agentKeys = generateKeyPair();

    // Agent, not enrolled: nothing pinned yet, so it reads the challenge by the key it carries.
    const peek = parseEnvelopeUnverified(challengeFrame(sid), { expect: ['challenge'] });
    const challenge = openEnvelope(challengeFrame(sid), {
      publicKey: peek.body.controller_key,
      expect: ['challenge'],
    });
    const agentSeq = new SequenceCounter();
    const enrolBody = {
      code: normaliseEnrolCode('abcd-2345'),
      agent_key: agentKeys.publicKey,
      agent_version: '0.1.0',
    };
    const enrol = encodeEnvelope(
      signEnvelope('enrol', enrolBody, {
        sid: challenge.sid,
        seq: agentSeq.next(),
        secretKey: agentKeys.secretKey,
      }),
    );

    // Controller: learns the key from the body, then verifies with it (proof of possession).
    const first = parseEnvelopeUnverified(enrol, { sid, expect: ['enrol', 'hello'], from: 'agent' });
    if (first.type !== 'enrol') throw new Error('expected enrol');
    const opened = openEnvelope(enrol, { publicKey: first.body.agent_key, sid, expect: ['enrol'] });
    const fromAgent = new SequenceGuard();
    fromAgent.accept(opened.seq);
    expect(opened.body.code).to.equal('ABCD2345');

    const welcomeBody = {
      agent_id: AGENT_ID,
      allocation_id: ALLOCATION_ID,
      controller_key: controllerKeys.publicKey,
      heartbeat_seconds: 30,
    };
    const welcome = encodeEnvelope(
      signEnvelope('welcome', welcomeBody, { sid, seq: 2, secretKey: controllerKeys.secretKey }),
    );

    // Agent: the welcome must come from the key that signed the challenge; that key is then pinned.
    const fromController = new SequenceGuard();
    fromController.accept(challenge.seq);
    const accepted = openEnvelope(welcome, {
      publicKey: challenge.body.controller_key,
      sid,
      expect: ['welcome'],
    });
    fromController.accept(accepted.seq);
    expect(accepted.body.controller_key).to.equal(challenge.body.controller_key);
  });

  it('lets an enrolled agent refuse a challenge not signed by its pinned controller key', () => {
    const sid = generateSessionNonce();
    const impostor = generateKeyPair();
    // The impostor copies the real controller_key into the body but cannot sign with it.
    expectProtocolError(
      () => openEnvelope(challengeFrame(sid, impostor.secretKey), { publicKey: controllerKeys.publicKey }),
      'BAD_SIGNATURE',
    );
  });

  it('refuses a hello captured in one session and replayed in the next', () => {
    const agentKeys = generateKeyPair();
    const sessionA = generateSessionNonce();
    const sessionB = generateSessionNonce();
    const helloBody = { agent_id: AGENT_ID, agent_version: '0.1.0', capabilities: [] };
    const captured = encodeEnvelope(
      signEnvelope('hello', helloBody, { sid: sessionA, seq: 1, secretKey: agentKeys.secretKey }),
    );
    expect(openEnvelope(captured, { publicKey: agentKeys.publicKey, sid: sessionA }).type).to.equal('hello');
    expectProtocolError(
      () => openEnvelope(captured, { publicKey: agentKeys.publicKey, sid: sessionB }),
      'WRONG_SESSION',
    );
  });

  it('refuses a frame replayed within its session', () => {
    const agentKeys = generateKeyPair();
    const sid = generateSessionNonce();
    const guard = new SequenceGuard();
    const frame = encodeEnvelope(
      signEnvelope('ping', { t: 1 }, { sid, seq: 1, secretKey: agentKeys.secretKey }),
    );
    guard.accept(openEnvelope(frame, { publicKey: agentKeys.publicKey, sid }).seq);
    const again = openEnvelope(frame, { publicKey: agentKeys.publicKey, sid });
    expectProtocolError(() => guard.accept(again.seq), 'REPLAYED_SEQUENCE');
  });
});
