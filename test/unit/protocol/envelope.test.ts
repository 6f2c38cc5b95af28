import { expect } from 'chai';
import {
  assertSession,
  encodeEnvelope,
  generateKeyPair,
  MESSAGE_SINCE_VERSION,
  MESSAGE_TYPES,
  openEnvelope,
  parseEnvelopeUnverified,
  signEnvelope,
} from '../../../protocol/index.js';
import type { MessageType, ProtocolErrorCode } from '../../../protocol/index.js';
import {
  AGENT,
  CONTROLLER,
  expectProtocolError,
  NOW,
  OTHER_SID,
  rawFields,
  SAMPLE_BODIES,
  SID,
  signerOf,
  signRaw,
} from './fixtures.js';

/** The version a sample is signed in: 1, or the first version that has its type. */
const versionOf = (type: MessageType) => MESSAGE_SINCE_VERSION[type] ?? 1;

function signedSample(type: MessageType, seq = 1): string {
  const body = SAMPLE_BODIES[type];
  return encodeEnvelope(
    signEnvelope(type, body as never, {
      sid: SID,
      seq,
      secretKey: signerOf(type).secretKey,
      now: NOW,
      v: versionOf(type),
    }),
  );
}

function patch(raw: string, change: (env: Record<string, unknown>) => void): string {
  const env = JSON.parse(raw) as Record<string, unknown>;
  change(env);
  return JSON.stringify(env);
}

describe('protocol envelopes', () => {
  describe('sign and open round trip', () => {
    for (const type of MESSAGE_TYPES) {
      it(`round-trips ${type}`, () => {
        const opened = openEnvelope(signedSample(type, 7), { publicKey: signerOf(type).publicKey });
        expect(opened.type).to.equal(type);
        expect(opened.body).to.deep.equal(SAMPLE_BODIES[type]);
        expect(opened).to.include({ v: versionOf(type), sid: SID, seq: 7, ts: NOW.toISOString() });
        expect(opened.sig).to.match(/^[A-Za-z0-9+/]{86}==$/);
      });
    }

    const frames: Array<[string, (text: string) => Parameters<typeof openEnvelope>[0]]> = [
      ['Buffer', (text) => Buffer.from(text)],
      ['ArrayBuffer', (text) => new Uint8Array(Buffer.from(text)).buffer],
      ['Buffer[] fragments', (text) => [Buffer.from(text.slice(0, 10)), Buffer.from(text.slice(10))]],
    ];
    for (const [name, toFrame] of frames) {
      it(`opens a frame given as ${name}`, () => {
        const opened = openEnvelope(toFrame(signedSample('ack')), { publicKey: AGENT.publicKey });
        expect(opened.body).to.deep.equal(SAMPLE_BODIES.ack);
      });
    }

    it('stamps ts from the system clock when no now is given', () => {
      const before = Date.now();
      const env = signEnvelope('ping', { t: 1 }, { sid: SID, seq: 1, secretKey: AGENT.secretKey });
      expect(Date.parse(env.ts)).to.be.within(before, Date.now());
    });

    it('narrows the body by type', () => {
      const opened = openEnvelope(signedSample('welcome'), {
        publicKey: CONTROLLER.publicKey,
        expect: ['welcome'],
      });
      // Compiles only because `expect` narrows the result to Envelope<'welcome'>.
      expect(opened.body.heartbeat_seconds).to.equal(30);
    });

    it('ignores body members a newer peer added, and still verifies their signature', () => {
      const raw = signRaw(rawFields('ack', { id: SAMPLE_BODIES.ack.id, extra: 'x' }), AGENT.secretKey);
      expect(openEnvelope(raw, { publicKey: AGENT.publicKey }).body).to.deep.equal({
        id: SAMPLE_BODIES.ack.id,
      });
    });
  });

  describe('refused frames', () => {
    const base = () => signedSample('command', 3);
    const otherKey = generateKeyPair();
    const cases: Array<[string, () => string, ProtocolErrorCode, string?]> = [
      [
        'tampered body',
        () => patch(base(), (e) => ((e.body as { name: string }).name = 'backup.save')),
        'BAD_SIGNATURE',
      ],
      [
        'tampered type (to another known type)',
        () => patch(base(), (e) => (e.type = 'ack')),
        'BAD_SIGNATURE',
      ],
      ['tampered seq', () => patch(base(), (e) => (e.seq = 4)), 'BAD_SIGNATURE'],
      ['tampered sid', () => patch(base(), (e) => (e.sid = OTHER_SID)), 'BAD_SIGNATURE'],
      ['tampered ts', () => patch(base(), (e) => (e.ts = '2025-03-01T12:00:01.000Z')), 'BAD_SIGNATURE'],
      [
        'tampered sig (one byte flipped)',
        () =>
          patch(base(), (e) => {
            const sig = Buffer.from(e.sig as string, 'base64');
            sig[0] = sig[0]! ^ 1;
            e.sig = sig.toString('base64');
          }),
        'BAD_SIGNATURE',
      ],
      ['sig not base64', () => patch(base(), (e) => (e.sig = '!!!')), 'BAD_SIGNATURE'],
      ['sig too short', () => patch(base(), (e) => (e.sig = 'AAAA')), 'BAD_SIGNATURE'],
      ['sig missing', () => patch(base(), (e) => delete e.sig), 'BAD_SIGNATURE'],
      [
        'signed by another key',
        () => signRaw(rawFields('ack', SAMPLE_BODIES.ack), otherKey.secretKey),
        'BAD_SIGNATURE',
      ],
      ['version 4', () => patch(base(), (e) => (e.v = 4)), 'UNSUPPORTED_VERSION'],
      ['version 4 with another shape', () => JSON.stringify({ v: 4, frame: 'x' }), 'UNSUPPORTED_VERSION'],
      ['signed in version 1, sent as version 2', () => patch(base(), (e) => (e.v = 2)), 'BAD_SIGNATURE'],
      [
        'version 0',
        () => signRaw(rawFields('ack', SAMPLE_BODIES.ack, { v: 0 }), CONTROLLER.secretKey),
        'UNSUPPORTED_VERSION',
      ],
      ['no version', () => patch(base(), (e) => delete e.v), 'BAD_MESSAGE'],
      ['version as text', () => patch(base(), (e) => (e.v = '1')), 'BAD_MESSAGE'],
      [
        'unknown type, correctly signed',
        () => signRaw(rawFields('reboot', {}), CONTROLLER.secretKey),
        'UNKNOWN_TYPE',
      ],
      [
        'inherited property name as type',
        () => signRaw(rawFields('toString', {}), CONTROLLER.secretKey),
        'UNKNOWN_TYPE',
      ],
      [
        'body missing a required field, correctly signed',
        () =>
          signRaw(
            rawFields('command', { ...SAMPLE_BODIES.command, deadline: undefined }),
            CONTROLLER.secretKey,
          ),
        'BAD_MESSAGE',
        'body.deadline',
      ],
      [
        'body with a wrong field type, correctly signed',
        () =>
          signRaw(
            rawFields('welcome', { ...SAMPLE_BODIES.welcome, heartbeat_seconds: '30' }),
            CONTROLLER.secretKey,
          ),
        'BAD_MESSAGE',
        'body.heartbeat_seconds',
      ],
      ['body not an object', () => signRaw(rawFields('ack', 'x'), CONTROLLER.secretKey), 'BAD_MESSAGE'],
      [
        'seq 0',
        () => signRaw(rawFields('ack', SAMPLE_BODIES.ack, { seq: 0 }), CONTROLLER.secretKey),
        'BAD_MESSAGE',
      ],
      [
        'seq 1.5',
        () => signRaw(rawFields('ack', SAMPLE_BODIES.ack, { seq: 1.5 }), CONTROLLER.secretKey),
        'BAD_MESSAGE',
      ],
      [
        'sid not base64',
        () => signRaw(rawFields('ack', SAMPLE_BODIES.ack, { sid: 'abc' }), CONTROLLER.secretKey),
        'BAD_MESSAGE',
      ],
      [
        'ts with offset',
        () =>
          signRaw(
            rawFields('ack', SAMPLE_BODIES.ack, { ts: '2025-03-01T13:00:00+01:00' }),
            CONTROLLER.secretKey,
          ),
        'BAD_MESSAGE',
      ],
      ['unsigned extra member', () => patch(base(), (e) => (e.route = 'x')), 'BAD_MESSAGE'],
      ['not JSON', () => '{"v":1,', 'BAD_MESSAGE'],
      ['JSON array', () => '[1]', 'BAD_MESSAGE'],
      ['JSON null', () => 'null', 'BAD_MESSAGE'],
    ];
    for (const [name, make, code, mentions] of cases) {
      it(`refuses ${name} with ${code}`, () => {
        const err = expectProtocolError(
          () => openEnvelope(make(), { publicKey: CONTROLLER.publicKey }),
          code,
        );
        if (mentions !== undefined) expect(err.message).to.contain(mentions);
      });
    }

    it('refuses bytes that are not UTF-8 with BAD_MESSAGE', () => {
      const raw = Buffer.concat([Buffer.from('{"v":1,"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      expectProtocolError(() => openEnvelope(raw, { publicKey: CONTROLLER.publicKey }), 'BAD_MESSAGE');
    });

    it('refuses a malformed verification key with BAD_KEY', () => {
      expectProtocolError(() => openEnvelope(base(), { publicKey: 'AAAA' }), 'BAD_KEY');
    });

    it('refuses a challenge whose nonce is not its sid with WRONG_SESSION', () => {
      const body = { ...SAMPLE_BODIES.challenge, nonce: OTHER_SID };
      const raw = signRaw(rawFields('challenge', body), CONTROLLER.secretKey);
      expectProtocolError(() => openEnvelope(raw, { publicKey: CONTROLLER.publicKey }), 'WRONG_SESSION');
    });
  });

  describe('sessions', () => {
    it('assertSession accepts the envelope of its own session', () => {
      const env = openEnvelope(signedSample('ack'), { publicKey: AGENT.publicKey });
      expect(() => assertSession(env, SID)).to.not.throw();
    });

    it('assertSession refuses an envelope of session A checked in session B', () => {
      const env = openEnvelope(signedSample('ack'), { publicKey: AGENT.publicKey });
      expectProtocolError(() => assertSession(env, OTHER_SID), 'WRONG_SESSION');
    });

    it('openEnvelope with sid refuses a frame replayed from another session', () => {
      expectProtocolError(
        () => openEnvelope(signedSample('ack'), { publicKey: AGENT.publicKey, sid: OTHER_SID }),
        'WRONG_SESSION',
      );
      expect(openEnvelope(signedSample('ack'), { publicKey: AGENT.publicKey, sid: SID }).sid).to.equal(SID);
    });
  });

  describe('expect and from', () => {
    const cases: Array<[string, MessageType, Parameters<typeof openEnvelope>[1], ProtocolErrorCode | null]> =
      [
        ['expected type', 'hello', { publicKey: AGENT.publicKey, expect: ['enrol', 'hello'] }, null],
        [
          'type outside expect',
          'result',
          { publicKey: AGENT.publicKey, expect: ['enrol', 'hello'] },
          'UNEXPECTED_MESSAGE',
        ],
        ['agent message from the agent', 'report', { publicKey: AGENT.publicKey, from: 'agent' }, null],
        [
          'either-way message from the agent',
          'ping',
          { publicKey: CONTROLLER.publicKey, from: 'agent' },
          null,
        ],
        [
          'controller message from the agent',
          'command',
          { publicKey: CONTROLLER.publicKey, from: 'agent' },
          'UNEXPECTED_MESSAGE',
        ],
        [
          'agent message from the controller',
          'result',
          { publicKey: AGENT.publicKey, from: 'controller' },
          'UNEXPECTED_MESSAGE',
        ],
      ];
    for (const [name, type, options, code] of cases) {
      it(`${code === null ? 'accepts' : 'refuses'} ${name}`, () => {
        if (code === null) expect(openEnvelope(signedSample(type), options).type).to.equal(type);
        else expectProtocolError(() => openEnvelope(signedSample(type), options), code);
      });
    }
  });

  describe('signEnvelope refuses what it must not sign', () => {
    const good = { sid: SID, seq: 1, secretKey: AGENT.secretKey };
    const cases: Array<[string, () => unknown, ProtocolErrorCode]> = [
      ['a body missing a field', () => signEnvelope('ack', {} as never, good), 'BAD_MESSAGE'],
      [
        'a FAILED result without fault',
        () => signEnvelope('result', { id: SAMPLE_BODIES.ack.id, status: 'FAILED' } as never, good),
        'BAD_MESSAGE',
      ],
      ['seq 0', () => signEnvelope('ack', SAMPLE_BODIES.ack, { ...good, seq: 0 }), 'BAD_MESSAGE'],
      [
        'a sid that is not base64',
        () => signEnvelope('ack', SAMPLE_BODIES.ack, { ...good, sid: 'session-1' }),
        'BAD_MESSAGE',
      ],
      ['an unknown type', () => signEnvelope('reboot' as MessageType, {} as never, good), 'UNKNOWN_TYPE'],
      [
        'with a public key as secret key',
        () => signEnvelope('ack', SAMPLE_BODIES.ack, { ...good, secretKey: AGENT.publicKey }),
        'BAD_KEY',
      ],
    ];
    for (const [name, fn, code] of cases) {
      it(`refuses ${name} with ${code}`, () => expectProtocolError(fn, code));
    }

    it('signs the validated body, without members the schema does not know', () => {
      const env = signEnvelope('ack', { id: SAMPLE_BODIES.ack.id, junk: 1 } as never, good);
      expect(env.body).to.deep.equal({ id: SAMPLE_BODIES.ack.id });
    });
  });

  describe('parseEnvelopeUnverified', () => {
    it('reads an enrol without knowing the key, and the key it carries then opens it', () => {
      const raw = signedSample('enrol');
      const peek = parseEnvelopeUnverified(raw, { sid: SID, expect: ['enrol', 'hello'] });
      if (peek.type !== 'enrol') throw new Error('expected enrol');
      const opened = openEnvelope(raw, { publicKey: peek.body.agent_key, sid: SID, expect: ['enrol'] });
      expect(opened.body.code).to.equal('ABCD2345');
    });

    it('does not check the signature, so the frame must be opened before it is trusted', () => {
      const forged = patch(signedSample('enrol'), (e) => (e.sig = 'AAAA'));
      expect(parseEnvelopeUnverified(forged).type).to.equal('enrol');
      const key = (parseEnvelopeUnverified(forged, { expect: ['enrol'] }).body as { agent_key: string })
        .agent_key;
      expectProtocolError(() => openEnvelope(forged, { publicKey: key }), 'BAD_SIGNATURE');
    });

    const cases: Array<[string, () => string, ProtocolErrorCode]> = [
      ['unknown version', () => patch(signedSample('enrol'), (e) => (e.v = 9)), 'UNSUPPORTED_VERSION'],
      ['unknown type', () => signRaw(rawFields('reboot', {}), AGENT.secretKey), 'UNKNOWN_TYPE'],
      ['bad body', () => signRaw(rawFields('enrol', { code: 'ABCD2345' }), AGENT.secretKey), 'BAD_MESSAGE'],
      [
        'another session',
        () => signRaw(rawFields('hello', SAMPLE_BODIES.hello, { sid: OTHER_SID }), AGENT.secretKey),
        'WRONG_SESSION',
      ],
      ['unexpected type', () => signedSample('report'), 'UNEXPECTED_MESSAGE'],
    ];
    for (const [name, make, code] of cases) {
      it(`still refuses ${name} with ${code}`, () =>
        expectProtocolError(
          () => parseEnvelopeUnverified(make(), { sid: SID, expect: ['enrol', 'hello'] }),
          code,
        ));
    }
  });
});
