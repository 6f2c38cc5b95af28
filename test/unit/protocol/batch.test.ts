// Protocol version 2: version negotiation, the `batch` message, and keys made ready once per link.
import { expect } from 'chai';
import {
  encodeEnvelope,
  messagesOf,
  negotiateVersion,
  openEnvelope,
  PROTOCOL_VERSION,
  signEnvelope,
  signingKey,
  SUPPORTED_VERSIONS,
  verifyingKey,
} from '../../../protocol/index.js';
import type { MessageBody, ProtocolErrorCode } from '../../../protocol/index.js';
import {
  AGENT,
  COMMAND_ID,
  CONTROLLER,
  expectProtocolError,
  NOW,
  rawFields,
  SAMPLE_BODIES,
  SID,
  signRaw,
} from './fixtures.js';

const agentV2 = { sid: SID, seq: 1, secretKey: AGENT.secretKey, now: NOW, v: 2 };
const batchOf = (...messages: unknown[]) => ({ messages }) as MessageBody<'batch'>;

describe('protocol version 2', () => {
  describe('negotiateVersion', () => {
    const cases: Array<[string, number[] | undefined, number]> = [
      ['nothing offered (a version 1 controller)', undefined, 1],
      ['only 1', [1], 1],
      ['1 and 2', [1, 2], 2],
      ['1, 2 and 3', [1, 2, 3], 3],
      ['2 and an unknown 7', [7, 2], 2],
      ['only versions this build does not speak', [5, 6], 1],
    ];
    for (const [name, offered, expected] of cases) {
      it(`answers ${expected} for ${name}`, () => expect(negotiateVersion(offered)).to.equal(expected));
    }
    it('stays at or below the highest version asked for (an older agent)', () => {
      expect(negotiateVersion([1, 2, 3], 2)).to.equal(2);
      expect(negotiateVersion([1, 2, 3], 1)).to.equal(1);
    });
    it('speaks 1, 2 and 3', () => {
      expect(SUPPORTED_VERSIONS).to.deep.equal([1, 2, 3]);
      expect(PROTOCOL_VERSION).to.equal(3);
    });
  });

  describe('batch', () => {
    it('carries several messages under one signature, in order', () => {
      const env = signEnvelope('batch', SAMPLE_BODIES.batch, agentV2);
      const opened = openEnvelope(encodeEnvelope(env), {
        publicKey: AGENT.publicKey,
        sid: SID,
        from: 'agent',
      });
      expect(opened).to.include({ v: 2, type: 'batch', seq: 1 });
      expect(messagesOf(opened).map((m) => m.type)).to.deep.equal(['ack', 'result']);
      expect(messagesOf(opened)[1]!.body).to.deep.equal(SAMPLE_BODIES.batch.messages[1]!.body);
    });

    it('gives a lone message as a list of one', () => {
      const env = signEnvelope('ack', { id: COMMAND_ID }, agentV2);
      expect(messagesOf(openEnvelope(encodeEnvelope(env), { publicKey: AGENT.publicKey }))).to.deep.equal([
        { type: 'ack', body: { id: COMMAND_ID } },
      ]);
    });

    it('drops inner body members a newer peer added, and still verifies', () => {
      const raw = signRaw(
        rawFields('batch', batchOf({ type: 'ack', body: { id: COMMAND_ID, extra: 1 } }), { v: 2 }),
        AGENT.secretKey,
      );
      const opened = openEnvelope(raw, { publicKey: AGENT.publicKey });
      expect(messagesOf(opened)).to.deep.equal([{ type: 'ack', body: { id: COMMAND_ID } }]);
    });

    const refused: Array<[string, () => string, Record<string, unknown>, ProtocolErrorCode]> = [
      [
        'a batch in a version 1 envelope',
        () => signRaw(rawFields('batch', SAMPLE_BODIES.batch), AGENT.secretKey),
        {},
        'UNKNOWN_TYPE',
      ],
      [
        'a handshake message in a batch',
        () =>
          signRaw(
            rawFields('batch', batchOf({ type: 'hello', body: SAMPLE_BODIES.hello }), { v: 2 }),
            AGENT.secretKey,
          ),
        {},
        'BAD_MESSAGE',
      ],
      [
        'a batch in a batch',
        () =>
          signRaw(
            rawFields('batch', batchOf({ type: 'batch', body: SAMPLE_BODIES.batch }), { v: 2 }),
            AGENT.secretKey,
          ),
        {},
        'BAD_MESSAGE',
      ],
      [
        'an unknown type in a batch',
        () => signRaw(rawFields('batch', batchOf({ type: 'reboot', body: {} }), { v: 2 }), AGENT.secretKey),
        {},
        'BAD_MESSAGE',
      ],
      [
        'an inner body its schema refuses',
        () =>
          signRaw(rawFields('batch', batchOf({ type: 'ack', body: { id: 'x' } }), { v: 2 }), AGENT.secretKey),
        {},
        'BAD_MESSAGE',
      ],
      [
        'a controller message in an agent batch',
        () =>
          signRaw(
            rawFields('batch', batchOf({ type: 'command', body: SAMPLE_BODIES.command }), { v: 2 }),
            AGENT.secretKey,
          ),
        { from: 'agent' },
        'UNEXPECTED_MESSAGE',
      ],
      [
        'an inner type outside expect',
        () => encodeEnvelope(signEnvelope('batch', SAMPLE_BODIES.batch, agentV2)),
        { expect: ['batch', 'ack'] },
        'UNEXPECTED_MESSAGE',
      ],
      [
        'a batch where expect does not name it',
        () => encodeEnvelope(signEnvelope('batch', SAMPLE_BODIES.batch, agentV2)),
        { expect: ['ack', 'result'] },
        'UNEXPECTED_MESSAGE',
      ],
      [
        'an empty batch',
        () => signRaw(rawFields('batch', batchOf(), { v: 2 }), AGENT.secretKey),
        {},
        'BAD_MESSAGE',
      ],
      [
        'a batch with a bad signature',
        () => {
          const env = signEnvelope('batch', SAMPLE_BODIES.batch, agentV2);
          env.body.messages.pop();
          return encodeEnvelope(env);
        },
        {},
        'BAD_SIGNATURE',
      ],
    ];
    for (const [name, make, options, code] of refused) {
      it(`refuses ${name} (${code})`, () => {
        expectProtocolError(() => openEnvelope(make(), { publicKey: AGENT.publicKey, ...options }), code);
      });
    }

    it('refuses to sign a batch in version 1, or one with an invalid inner message', () => {
      expectProtocolError(
        () => signEnvelope('batch', SAMPLE_BODIES.batch, { ...agentV2, v: 1 }),
        'UNKNOWN_TYPE',
      );
      expectProtocolError(
        () => signEnvelope('batch', batchOf({ type: 'welcome', body: SAMPLE_BODIES.welcome }), agentV2),
        'BAD_MESSAGE',
      );
      expectProtocolError(
        () => signEnvelope('batch', batchOf({ type: 'ack', body: {} }), agentV2),
        'BAD_MESSAGE',
      );
      expectProtocolError(
        () => signEnvelope('ack', { id: COMMAND_ID }, { ...agentV2, v: 4 }),
        'UNSUPPORTED_VERSION',
      );
    });
  });

  describe('the session version', () => {
    it('refuses an envelope of another version than the session one', () => {
      const v1 = encodeEnvelope(signEnvelope('ack', { id: COMMAND_ID }, { ...agentV2, v: 1 }));
      const v2 = encodeEnvelope(signEnvelope('ack', { id: COMMAND_ID }, agentV2));
      expect(openEnvelope(v2, { publicKey: AGENT.publicKey, version: 2 }).v).to.equal(2);
      expectProtocolError(
        () => openEnvelope(v1, { publicKey: AGENT.publicKey, version: 2 }),
        'UNSUPPORTED_VERSION',
      );
      expectProtocolError(
        () => openEnvelope(v2, { publicKey: AGENT.publicKey, version: 1 }),
        'UNSUPPORTED_VERSION',
      );
    });

    it('signs in version 1 unless told otherwise, so a caller that knows nothing of versions speaks 1', () => {
      expect(
        signEnvelope('ack', { id: COMMAND_ID }, { sid: SID, seq: 1, secretKey: AGENT.secretKey }).v,
      ).to.equal(1);
    });
  });

  describe('keys made ready once', () => {
    it('sign and verify exactly as the base64 keys do', () => {
      const withText = signEnvelope('ack', { id: COMMAND_ID }, agentV2);
      const withKey = signEnvelope(
        'ack',
        { id: COMMAND_ID },
        { ...agentV2, secretKey: signingKey(AGENT.secretKey) },
      );
      expect(withKey.sig).to.equal(withText.sig);
      const key = verifyingKey(AGENT.publicKey);
      expect(key.publicKey).to.equal(AGENT.publicKey);
      expect(openEnvelope(encodeEnvelope(withKey), { publicKey: key }).body).to.deep.equal({
        id: COMMAND_ID,
      });
      expectProtocolError(
        () => openEnvelope(encodeEnvelope(withKey), { publicKey: verifyingKey(CONTROLLER.publicKey) }),
        'BAD_SIGNATURE',
      );
    });

    it('refuse malformed keys with BAD_KEY', () => {
      expectProtocolError(() => signingKey('AAAA'), 'BAD_KEY');
      expectProtocolError(() => verifyingKey(AGENT.secretKey), 'BAD_KEY');
    });
  });
});
