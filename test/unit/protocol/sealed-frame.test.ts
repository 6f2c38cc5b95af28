// Protocol version 3: session keys from ephemeral X25519 keys, and sealed frames whose MAC is checked
// before anything else of the frame is read.
import { createCipheriv, createHmac } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { expect } from 'chai';
import {
  deriveSessionKeys,
  encodeEnvelope,
  generateEphemeralKeyPair,
  openFrame,
  SEALED_HEADER_BYTES,
  sealFrame,
  sealStreamDataInPlace,
  STREAM_FRAME_ROOM,
  STREAM_LARGE_CHUNK_BYTES,
  SequenceGuard,
  signEnvelope,
  streamDataBytes,
  type SessionKeys,
} from '../../../protocol/index.js';
import { AGENT, COMMAND_ID, CONTROLLER, expectProtocolError, NOW, OTHER_SID, SID } from './fixtures.js';

const MAX = 1024 * 1024;

function sessionPair(sid = SID, poly1305 = false): { agent: SessionKeys; controller: SessionKeys } {
  const a = generateEphemeralKeyPair();
  const c = generateEphemeralKeyPair();
  const common = { sid, agentKey: AGENT.publicKey, controllerKey: CONTROLLER.publicKey, poly1305 };
  return {
    agent: deriveSessionKeys({ ...common, role: 'agent', own: a, peerPublicKey: c.publicKey }),
    controller: deriveSessionKeys({ ...common, role: 'controller', own: c, peerPublicKey: a.publicKey }),
  };
}

const users = Array.from({ length: 40 }, (_, i) => ({
  name: `client${i}`,
  password: `pw${i}x`,
  profile: '1h',
  comment: 'vendu au comptoir',
  disabled: false,
}));

// A frame with any payload and flags, MAC'd as `sealFrame` would: to test what comes after the MAC.
function forge(keys: SessionKeys, seq: number, flags: number, payload: Buffer): Buffer {
  const frame = Buffer.alloc(SEALED_HEADER_BYTES + payload.length);
  frame[0] = 3;
  frame[1] = flags;
  frame.writeUInt32BE(0, 2);
  frame.writeUInt32BE(seq, 6);
  payload.copy(frame, SEALED_HEADER_BYTES);
  const material = Buffer.from(keys.material, 'latin1');
  createHmac('sha256', material.subarray(0, 32))
    .update(frame.subarray(0, 10))
    .update(material.subarray(64))
    .update(payload)
    .digest()
    .subarray(0, 16)
    .copy(frame, 10);
  return frame;
}

// The same frame with a Poly1305 tag made here from RFC 8439's AEAD: the frame as additional data,
// nothing encrypted, the nonce the sequence number.
function forgePoly(keys: SessionKeys, seq: number, flags: number, payload: Buffer): Buffer {
  const frame = forge(keys, seq, flags, payload);
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(seq, 8);
  const key = Buffer.from(keys.poly1305!, 'latin1').subarray(0, 32);
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
  const sid = Buffer.from(keys.material, 'latin1').subarray(64);
  cipher.setAAD(Buffer.concat([frame.subarray(0, 10), sid, payload]), { plaintextLength: 0 });
  cipher.final();
  cipher.getAuthTag().copy(frame, 10);
  return frame;
}

describe('protocol version 3', () => {
  describe('session keys', () => {
    it('gives both ends the same key per direction, and the two directions different keys', () => {
      const { agent, controller } = sessionPair();
      const bytes = (keys: SessionKeys, from: number, to?: number) =>
        Buffer.from(keys.material, 'latin1').subarray(from, to).toString('base64');
      const send = (keys: SessionKeys) => bytes(keys, 0, 32);
      const receive = (keys: SessionKeys) => bytes(keys, 32, 64);
      expect(send(agent)).to.equal(receive(controller));
      expect(send(controller)).to.equal(receive(agent));
      expect(send(agent)).to.not.equal(receive(agent));
      expect(bytes(agent, 64)).to.equal(SID);
    });

    it('refuses a malformed or low-order peer key', () => {
      const own = generateEphemeralKeyPair();
      const common = {
        role: 'agent',
        sid: SID,
        own,
        agentKey: AGENT.publicKey,
        controllerKey: CONTROLLER.publicKey,
      } as const;
      expectProtocolError(() => deriveSessionKeys({ ...common, peerPublicKey: 'AAAA' }), 'BAD_KEY');
      // The all-zero point gives an all-zero shared secret.
      const zero = Buffer.alloc(32).toString('base64');
      expectProtocolError(() => deriveSessionKeys({ ...common, peerPublicKey: zero }), 'BAD_KEY');
    });
  });

  describe('sealed frames', () => {
    it('carries a message from one end to the other, with its sequence number and time', () => {
      const { agent, controller } = sessionPair();
      const frame = sealFrame('ack', { id: COMMAND_ID }, { keys: agent, seq: 2, now: NOW });
      const opened = openFrame(frame, { keys: controller, from: 'agent', maxBytes: MAX });
      expect(opened).to.deep.include({ v: 3, type: 'ack', sid: SID, seq: 2, ts: NOW.toISOString() });
      expect(opened.body).to.deep.equal({ id: COMMAND_ID });
      // A 26-byte header and the JSON message: no signature, no session id, no base64.
      const signed = encodeEnvelope(
        signEnvelope(
          'ack',
          { id: COMMAND_ID },
          { sid: SID, seq: 2, secretKey: AGENT.secretKey, v: 2, now: NOW },
        ),
      );
      expect(frame.length).to.be.below(Buffer.byteLength(signed) / 2);
    });

    it('compresses a payload from 1 KiB on, and only when it gets smaller', () => {
      const { agent, controller } = sessionPair();
      const params = { users };
      const command = { id: COMMAND_ID, name: 'hotspot.users.restore', params, deadline: NOW.toISOString() };
      const big = sealFrame('command', command, { keys: controller, seq: 3 });
      expect(big[1]).to.equal(1);
      expect(big.length).to.be.below(JSON.stringify(params).length / 3);
      const opened = openFrame(big, { keys: agent, from: 'controller', maxBytes: MAX });
      expect(opened.body).to.deep.equal(command);
      expect(sealFrame('ack', { id: COMMAND_ID }, { keys: agent, seq: 4 })[1]).to.equal(0);
    });

    const cases: Array<[string, (k: { agent: SessionKeys; controller: SessionKeys }) => Buffer, string]> = [
      [
        'garbage after a wrong MAC (refused before parsing: BAD_SIGNATURE, not BAD_MESSAGE)',
        () =>
          Buffer.concat([
            Buffer.from([3, 0, 0, 0, 0, 0, 0, 0, 0, 5]),
            Buffer.alloc(16),
            Buffer.from('{not json'),
          ]),
        'BAD_SIGNATURE',
      ],
      [
        'one payload byte changed',
        ({ agent }) => {
          const f = sealFrame('ping', { t: 12345 }, { keys: agent, seq: 2 });
          f[f.length - 3] = f[f.length - 3]! ^ 1;
          return f;
        },
        'BAD_SIGNATURE',
      ],
      [
        'the sequence number changed',
        ({ agent }) => {
          const f = sealFrame('ping', { t: 1 }, { keys: agent, seq: 2 });
          f[9] = 9;
          return f;
        },
        'BAD_SIGNATURE',
      ],
      [
        'the compression flag set by someone on the path',
        ({ agent }) => {
          const f = sealFrame('ping', { t: 1 }, { keys: agent, seq: 2 });
          f[1] = 1;
          return f;
        },
        'BAD_SIGNATURE',
      ],
      [
        "the controller's own frame reflected back to it",
        ({ controller }) => sealFrame('ping', { t: 1 }, { keys: controller, seq: 2 }),
        'BAD_SIGNATURE',
      ],
      [
        'a frame MAC-ed with keys not from the handshake',
        () => sealFrame('ping', { t: 1 }, { keys: sessionPair().agent, seq: 2 }),
        'BAD_SIGNATURE',
      ],
      [
        'a frame of the same keys in another session id',
        ({ agent }) =>
          sealFrame(
            'ping',
            { t: 1 },
            {
              keys: {
                sid: OTHER_SID,
                material: agent.material.slice(0, 64) + Buffer.from(OTHER_SID, 'base64').toString('latin1'),
              },
              seq: 2,
            },
          ),
        'BAD_SIGNATURE',
      ],
      [
        'a signed JSON envelope',
        () => Buffer.from(JSON.stringify({ v: 3, type: 'ping', sid: SID, seq: 2, body: { t: 1 } })),
        'UNSUPPORTED_VERSION',
      ],
      ['a short frame', () => Buffer.from([3, 0, 0]), 'BAD_MESSAGE'],
      ['unknown flags (authenticated)', ({ agent }) => forge(agent, 2, 2, Buffer.from('{}')), 'BAD_MESSAGE'],
      [
        'a payload that is not JSON (authenticated)',
        ({ agent }) => forge(agent, 2, 0, Buffer.from('{no')),
        'BAD_MESSAGE',
      ],
      [
        'a compressed payload that inflates over the frame limit (authenticated)',
        ({ agent }) => forge(agent, 2, 1, deflateRawSync(Buffer.alloc(MAX + 1, 0x20))),
        'BAD_MESSAGE',
      ],
      [
        'a controller message from the agent',
        ({ agent }) => sealFrame('report_ack', { ids: [COMMAND_ID] }, { keys: agent, seq: 2 }),
        'UNEXPECTED_MESSAGE',
      ],
    ];
    for (const [name, make, code] of cases) {
      it(`refuses ${name}`, () => {
        const pair = sessionPair();
        expectProtocolError(
          () => openFrame(make(pair), { keys: pair.controller, from: 'agent', maxBytes: MAX }),
          code as never,
        );
      });
    }

    // Small frames are MAC'd in one piece, larger ones as a stream (sealed-frame.ts): both must be
    // HMAC-SHA256 as RFC 2104 defines it, on each side of the boundary and of the hash's 64-byte block.
    for (const payloadBytes of [40, 55, 56, 64, 119, 120, 4095, 4096, 4097, 9000]) {
      it(`MACs a payload of ${payloadBytes} bytes as HMAC-SHA256, both ways`, () => {
        const { agent, controller } = sessionPair();
        const message = JSON.stringify({ type: 'ping', ts: NOW.toISOString(), body: { t: 1 } });
        // JSON allows trailing white space: a valid message of exactly this many bytes.
        const payload = Buffer.from(message.padEnd(payloadBytes, ' '));
        const forged = forge(agent, 5, 0, payload);
        expect(openFrame(forged, { keys: controller, from: 'agent', maxBytes: MAX }).seq).to.equal(5);
        const tampered = Buffer.from(forged);
        tampered[tampered.length - 1] = 0x0a;
        expectProtocolError(
          () => openFrame(tampered, { keys: controller, from: 'agent', maxBytes: MAX }),
          'BAD_SIGNATURE',
        );
        const sealed = sealFrame(
          'report',
          { id: COMMAND_ID, kind: 'event', at: NOW.toISOString(), data: { x: 'y'.repeat(payloadBytes) } },
          { keys: agent, seq: 6, now: NOW, compressFrom: Infinity },
        );
        const reference = forge(agent, 6, 0, sealed.subarray(SEALED_HEADER_BYTES));
        expect(sealed.equals(reference)).to.equal(true);
      });
    }

    it('leaves replay and reordering to the SequenceGuard, as for signed envelopes', () => {
      const { agent, controller } = sessionPair();
      const guard = new SequenceGuard();
      const open = (f: Buffer) => guard.accept(openFrame(f, { keys: controller, maxBytes: MAX }).seq);
      const second = sealFrame('ping', { t: 2 }, { keys: agent, seq: 2 });
      const third = sealFrame('ping', { t: 3 }, { keys: agent, seq: 3 });
      open(third);
      expectProtocolError(() => open(second), 'REPLAYED_SEQUENCE');
      expectProtocolError(() => open(third), 'REPLAYED_SEQUENCE');
    });
  });

  describe('raw stream bytes', () => {
    const bytes = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 31) & 0xff));

    it('carries a stream_data as bytes after its JSON: one copy, no base64, the MAC over all', () => {
      const { agent, controller } = sessionPair();
      const frame = sealFrame(
        'stream_data',
        { id: COMMAND_ID, data: bytes },
        { keys: agent, seq: 1, now: NOW },
      );
      expect(frame[1]).to.equal(2);
      // header, length, a short JSON, the bytes: far below base64's 4/3
      expect(frame.length).to.be.below(SEALED_HEADER_BYTES + 4 + 120 + bytes.length);
      const opened = openFrame(frame, { keys: controller, maxBytes: MAX });
      expect(opened.type).to.equal('stream_data');
      const body = opened.body as { id: string; data: Uint8Array };
      expect(body.id).to.equal(COMMAND_ID);
      expect(Buffer.from(body.data).equals(bytes)).to.equal(true);
      expect(streamDataBytes(body).equals(bytes)).to.equal(true);
      // one byte of the raw part altered: the MAC does not hold
      const altered = Buffer.from(frame);
      altered[altered.length - 1]! ^= 1;
      expectProtocolError(() => openFrame(altered, { keys: controller, maxBytes: MAX }), 'BAD_SIGNATURE');
    });

    it('still reads and sends base64 for a peer without the feature', () => {
      const { agent, controller } = sessionPair();
      const frame = sealFrame(
        'stream_data',
        { id: COMMAND_ID, data: bytes.subarray(0, 100).toString('base64') },
        { keys: agent, seq: 1, now: NOW },
      );
      expect(frame[1]).to.equal(0);
      const body = openFrame(frame, { keys: controller, maxBytes: MAX }).body as { data: string };
      expect(streamDataBytes(body).equals(bytes.subarray(0, 100))).to.equal(true);
    });

    it('refuses raw bytes in another type, beside a JSON data, with a bad length, compressed, or too many', () => {
      const { agent, controller } = sessionPair();
      const withBytes = (json: object, tail: Buffer, flags = 2) => {
        const head = Buffer.from(JSON.stringify(json));
        const length = Buffer.alloc(4);
        length.writeUInt32BE(head.length);
        return forge(agent, 1, flags, Buffer.concat([length, head, tail]));
      };
      const ts = NOW.toISOString();
      const cases: [string, Buffer][] = [
        ['a ping with bytes', withBytes({ type: 'ping', ts, body: { t: 1 } }, Buffer.from('x'))],
        [
          'data in JSON and bytes',
          withBytes({ type: 'stream_data', ts, body: { id: COMMAND_ID, data: 'eA==' } }, Buffer.from('x')),
        ],
        ['a length past the payload', forge(agent, 1, 2, Buffer.from([0, 0, 1, 0, 123]))],
        [
          'bytes flagged compressed',
          withBytes({ type: 'stream_data', ts, body: { id: COMMAND_ID } }, bytes, 3),
        ],
        [
          'more than a large chunk',
          withBytes(
            { type: 'stream_data', ts, body: { id: COMMAND_ID } },
            Buffer.alloc(STREAM_LARGE_CHUNK_BYTES + 1, 'x'),
          ),
        ],
        [
          'no bytes at all',
          withBytes({ type: 'stream_data', ts, body: { id: COMMAND_ID } }, Buffer.alloc(0)),
        ],
      ];
      for (const [name, frame] of cases) {
        expect(() => openFrame(frame, { keys: controller, maxBytes: MAX }), name).to.throw();
        expectProtocolError(() => openFrame(frame, { keys: controller, maxBytes: MAX }), 'BAD_MESSAGE');
      }
    });
  });

  describe('stream bytes sealed in place', () => {
    it('builds the same frame as sealFrame around bytes read after a room, without copying them', () => {
      const { agent, controller } = sessionPair();
      for (const length of [1, 5000, STREAM_LARGE_CHUNK_BYTES]) {
        const buffer = Buffer.alloc(STREAM_FRAME_ROOM + length + 10);
        for (let i = 0; i < length; i++) buffer[STREAM_FRAME_ROOM + i] = (i * 13) & 0xff;
        const data = Buffer.from(buffer.subarray(STREAM_FRAME_ROOM, STREAM_FRAME_ROOM + length));
        const options = { keys: agent, seq: 7, now: NOW };
        const frame = sealStreamDataInPlace(COMMAND_ID, buffer, STREAM_FRAME_ROOM, length, options);
        // a view of the caller's buffer, ending with its bytes
        expect(frame.buffer).to.equal(buffer.buffer);
        expect(frame.byteOffset + frame.length).to.equal(buffer.byteOffset + STREAM_FRAME_ROOM + length);
        expect(frame.equals(sealFrame('stream_data', { id: COMMAND_ID, data }, options))).to.equal(true);
        const opened = openFrame(frame, { keys: controller, maxBytes: MAX });
        expect(streamDataBytes(opened.body as { data: Uint8Array }).equals(data)).to.equal(true);
      }
    });

    it('refuses too little room, too many bytes, none, or a bad id', () => {
      const { agent } = sessionPair();
      const options = { keys: agent, seq: 7, now: NOW };
      const buffer = Buffer.alloc(STREAM_FRAME_ROOM + STREAM_LARGE_CHUNK_BYTES + 1);
      const seal = (id: string, at: number, length: number) => () =>
        sealStreamDataInPlace(id, buffer, at, length, options);
      expectProtocolError(seal(COMMAND_ID, 40, 100), 'BAD_MESSAGE');
      expectProtocolError(seal(COMMAND_ID, STREAM_FRAME_ROOM, STREAM_LARGE_CHUNK_BYTES + 1), 'BAD_MESSAGE');
      expectProtocolError(seal(COMMAND_ID, STREAM_FRAME_ROOM, 0), 'BAD_MESSAGE');
      expectProtocolError(seal(COMMAND_ID, STREAM_FRAME_ROOM, buffer.length), 'BAD_MESSAGE');
      expectProtocolError(seal('not-an-id', STREAM_FRAME_ROOM, 100), 'BAD_MESSAGE');
    });
  });

  describe('Poly1305 (both ends named mac.poly1305)', () => {
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) & 0xff));
    const large = () =>
      sealFrame('stream_data', { id: COMMAND_ID, data: bytes }, { keys: agentOf(), seq: 9, now: NOW });
    let pair: { agent: SessionKeys; controller: SessionKeys };
    const agentOf = () => pair.agent;
    beforeEach(() => {
      pair = sessionPair(SID, true);
    });

    it('derives Poly1305 keys of their own per direction, shared by both ends', () => {
      const { agent, controller } = pair;
      const key = (keys: SessionKeys, at: number) => keys.poly1305!.slice(at, at + 32);
      expect(key(agent, 0)).to.equal(key(controller, 32));
      expect(key(controller, 0)).to.equal(key(agent, 32));
      expect(key(agent, 0)).to.not.equal(key(agent, 32));
      expect(key(agent, 0)).to.not.equal(agent.material.slice(0, 32));
      expect(sessionPair().agent.poly1305).to.equal(undefined);
    });

    it('tags a frame over 4 KiB with ChaCha20-Poly1305 over the frame, and smaller ones with HMAC-SHA256', () => {
      const frame = large();
      expect(frame.equals(forgePoly(pair.agent, 9, 2, frame.subarray(SEALED_HEADER_BYTES)))).to.equal(true);
      const opened = openFrame(frame, { keys: pair.controller, from: 'agent', maxBytes: MAX });
      expect(streamDataBytes(opened.body as { data: Uint8Array }).equals(bytes)).to.equal(true);
      const small = sealFrame('ack', { id: COMMAND_ID }, { keys: pair.agent, seq: 10, now: NOW });
      expect(small.equals(forge(pair.agent, 10, 0, small.subarray(SEALED_HEADER_BYTES)))).to.equal(true);
      expect(openFrame(small, { keys: pair.controller, maxBytes: MAX }).seq).to.equal(10);
      // on each side of the boundary, as the receiver picks the MAC by the length
      for (const payloadBytes of [4096, 4097]) {
        const message = JSON.stringify({ type: 'ping', ts: NOW.toISOString(), body: { t: 1 } });
        const payload = Buffer.from(message.padEnd(payloadBytes, ' '));
        const right = payloadBytes > 4096 ? forgePoly : forge;
        const wrong = payloadBytes > 4096 ? forge : forgePoly;
        expect(
          openFrame(right(pair.agent, 11, 0, payload), { keys: pair.controller, maxBytes: MAX }).seq,
        ).to.equal(11);
        expectProtocolError(
          () => openFrame(wrong(pair.agent, 11, 0, payload), { keys: pair.controller, maxBytes: MAX }),
          'BAD_SIGNATURE',
        );
      }
    });

    it('refuses a tampered frame before its payload is read, whatever the payload', () => {
      const open = (frame: Buffer) => () => openFrame(frame, { keys: pair.controller, maxBytes: MAX });
      for (const at of [1, 5, 20, SEALED_HEADER_BYTES + 2, 10_000, -1]) {
        const tampered = Buffer.from(large());
        tampered[at < 0 ? tampered.length + at : at]! ^= 1;
        expectProtocolError(open(tampered), 'BAD_SIGNATURE');
      }
      // garbage that would fail to parse is refused for its tag, and parsed only with a valid one
      const garbage = Buffer.alloc(9000, 0xff);
      const forged = forgePoly(pair.agent, 12, 0, garbage);
      const badTag = Buffer.from(forged);
      badTag[12]! ^= 1;
      expectProtocolError(open(badTag), 'BAD_SIGNATURE');
      expectProtocolError(open(forged), 'BAD_MESSAGE');
      // another session, the other direction, or a session without Poly1305
      expectProtocolError(
        () => openFrame(large(), { keys: sessionPair(SID, true).controller, maxBytes: MAX }),
        'BAD_SIGNATURE',
      );
      expectProtocolError(() => openFrame(large(), { keys: pair.agent, maxBytes: MAX }), 'BAD_SIGNATURE');
      const withoutPoly = { sid: pair.controller.sid, material: pair.controller.material };
      expectProtocolError(() => openFrame(large(), { keys: withoutPoly, maxBytes: MAX }), 'BAD_SIGNATURE');
    });

    it('puts the sequence number in the nonce: the same bytes at another number have another tag', () => {
      const a = sealFrame(
        'stream_data',
        { id: COMMAND_ID, data: bytes },
        { keys: pair.agent, seq: 20, now: NOW },
      );
      const b = sealFrame(
        'stream_data',
        { id: COMMAND_ID, data: bytes },
        { keys: pair.agent, seq: 21, now: NOW },
      );
      expect(a.subarray(10, 26).equals(b.subarray(10, 26))).to.equal(false);
      // moved to another number: refused
      const moved = Buffer.from(a);
      moved.writeUInt32BE(21, 6);
      expectProtocolError(() => openFrame(moved, { keys: pair.controller, maxBytes: MAX }), 'BAD_SIGNATURE');
    });
  });
});
