// The agent's side of a relayed stream: the router's bytes read after room for the frame's head,
// full reads framed where they lie, short ones copied, base64 for a controller that reads no raw
// bytes, and no reading past the controller's credit.
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { StreamDialer, STREAM_WINDOW } from '../../../agent/link/stream-dialer.js';
import { STREAM_CHUNK_BYTES, STREAM_FRAME_ROOM, STREAM_LARGE_CHUNK_BYTES } from '../../../protocol/index.js';
import { eventually } from '../../integration/hub/hub-fixture.js';

const ID = '01a22000-0000-7000-8000-000000000001';
const PATTERN = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7919 + (i >> 10)) & 0xff));

interface Harness {
  dialer: StreamDialer;
  /** The bytes of every frame sent, as the views handed over (not copies). */
  frames: Buffer[];
  base64: string[];
  /** The router's side of the connection, once the dialer connected. */
  router: Promise<Socket>;
  server: Server;
}

async function harness(raw: boolean, large: boolean): Promise<Harness> {
  let accept!: (s: Socket) => void;
  const router = new Promise<Socket>((r) => (accept = r));
  const server = createServer(accept);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const frames: Buffer[] = [];
  const base64: string[] = [];
  const dialer = new StreamDialer({
    host: '127.0.0.1',
    send: async (type, body) => {
      if (type === 'stream_data') base64.push((body as { data: string }).data);
      return true;
    },
    rawBytes: () => raw,
    largeChunks: () => large,
    sendBytes: async (id, buffer, at, length) => {
      expect(id).to.equal(ID);
      expect(at).to.be.at.least(STREAM_FRAME_ROOM);
      frames.push(buffer.subarray(at, at + length));
      return true;
    },
    logger: { debug: () => undefined },
  });
  dialer.receive({
    type: 'stream_open',
    body: { id: ID, port: (server.address() as AddressInfo).port, window: STREAM_WINDOW },
  });
  return { dialer, frames, base64, router, server };
}

// Writes `bytes` in pieces of the given sizes (in turn), letting the reader catch up between some.
async function write(socket: Socket, bytes: Buffer, sizes: number[]): Promise<void> {
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    socket.write(bytes.subarray(at, at + size));
    at += size;
    if (i % 3 === 0) await new Promise((r) => setImmediate(r));
  }
}

const credit = (h: Harness, bytes: number) =>
  h.dialer.receive({ type: 'stream_credit', body: { id: ID, bytes } });

describe('agent byte streams (StreamDialer)', () => {
  let h: Harness | undefined;
  afterEach(() => {
    h?.dialer.closeAll();
    h?.server.close();
    h = undefined;
  });

  for (const large of [false, true]) {
    it(`frames the router's bytes in order, up to ${large ? 256 : 64} KiB each, no view overwritten by a later read`, async () => {
      h = await harness(true, large);
      const router = await h.router;
      const bytes = PATTERN.subarray(0, 2 * 1024 * 1024);
      credit(h, bytes.length);
      // short and long writes: short reads are copied, full ones framed in place
      await write(router, bytes, [100, 70_000, 5, 300_000, 20_000]);
      await eventually(
        async () => h!.frames.reduce((n, f) => n + f.length, 0),
        (n) => n === bytes.length,
        10_000,
      );
      expect(Buffer.concat(h.frames).equals(bytes)).to.equal(true);
      const most = Math.max(...h.frames.map((f) => f.length));
      expect(most).to.be.at.most(large ? STREAM_LARGE_CHUNK_BYTES : STREAM_CHUNK_BYTES);
      if (large) expect(most).to.be.above(STREAM_CHUNK_BYTES);
    });
  }

  it('sends base64 to a controller that reads no raw bytes, 64 KiB at most each', async () => {
    h = await harness(false, true);
    const router = await h.router;
    const bytes = PATTERN.subarray(0, 300_000);
    router.write(bytes);
    await eventually(
      async () => h!.base64.reduce((n, d) => n + Buffer.from(d, 'base64').length, 0),
      (n) => n === bytes.length,
      10_000,
    );
    expect(Buffer.concat(h.base64.map((d) => Buffer.from(d, 'base64'))).equals(bytes)).to.equal(true);
    expect(Math.max(...h.base64.map((d) => Buffer.from(d, 'base64').length))).to.be.at.most(
      STREAM_CHUNK_BYTES,
    );
    expect(h.frames).to.have.length(0);
  });

  it('stops reading once the credit is spent, and reads on when more comes', async () => {
    h = await harness(true, true);
    const router = await h.router;
    router.write(PATTERN);
    const sent = () => h!.frames.reduce((n, f) => n + f.length, 0);
    await eventually(
      async () => sent(),
      (n) => n >= STREAM_WINDOW,
      10_000,
    );
    await new Promise((r) => setTimeout(r, 100));
    // at most one read past the window, then nothing until credit
    const stalled = sent();
    expect(stalled).to.be.below(STREAM_WINDOW + STREAM_LARGE_CHUNK_BYTES + 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(sent()).to.equal(stalled);
    credit(h, PATTERN.length);
    await eventually(
      async () => sent(),
      (n) => n === PATTERN.length,
      10_000,
    );
    expect(Buffer.concat(h.frames).equals(PATTERN)).to.equal(true);
  });
});
