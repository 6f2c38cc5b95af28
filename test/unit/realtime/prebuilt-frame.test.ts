// A message framed once for many sockets puts on the wire exactly the bytes `ws.send` would, and
// reaches a `ws` client as the same message, in order among the socket's other messages.
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { expect } from 'chai';
import WebSocket, { WebSocketServer } from 'ws';
import {
  directSocketOf,
  prebuildTextFrame,
  sendPrebuilt,
} from '../../../controller/modules/realtime/prebuilt-frame.js';

const SIZES = [0, 1, 125, 126, 127, 65_535, 65_536, 70_000];
const text = (n: number) => Buffer.from('x'.repeat(n));

describe('realtime prebuilt frames', () => {
  let wss: WebSocketServer;
  let server: WebSocket;
  let client: WebSocket;
  const received: string[] = [];

  beforeEach(async () => {
    received.length = 0;
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    await new Promise((r) => wss.once('listening', r));
    const accepted = new Promise<WebSocket>((r) => wss.once('connection', r));
    client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, {
      perMessageDeflate: false,
      maxPayload: 1 << 20,
    });
    client.on('message', (m, isBinary) => {
      expect(isBinary).to.equal(false);
      received.push(m.toString());
    });
    await new Promise((r) => client.once('open', r));
    server = await accepted;
  });
  afterEach(async () => {
    client.terminate();
    await new Promise((r) => wss.close(r));
  });

  for (const n of SIZES) {
    it(`writes the bytes ws.send writes, for a payload of ${n} bytes`, () => {
      const socket = (server as unknown as { _socket: Duplex })._socket;
      const written: Buffer[] = [];
      const write = socket.write.bind(socket);
      socket.write = ((chunk: Buffer, ...rest: never[]) => {
        written.push(Buffer.from(chunk));
        return write(chunk, ...rest);
      }) as typeof socket.write;
      try {
        const payload = text(n);
        server.send(payload, { binary: false });
        const byWs = Buffer.concat(written.splice(0));
        sendPrebuilt(server, prebuildTextFrame(payload));
        expect(Buffer.concat(written)).to.deep.equal(byWs);
        expect(prebuildTextFrame(payload).frame).to.deep.equal(byWs);
      } finally {
        socket.write = write;
      }
    });
  }

  it('reaches the client as the same messages, in order with those sent by ws.send', async () => {
    const shared = prebuildTextFrame(
      Buffer.from('{"push":{"channel":"support:presence","pub":{"data":{},"offset":1}}}'),
    );
    server.send('{"id":1,"subscribe":{}}');
    sendPrebuilt(server, shared);
    server.send(text(200), { binary: false });
    sendPrebuilt(server, prebuildTextFrame(text(70_000)));
    sendPrebuilt(server, shared);
    for (let i = 0; received.length < 5 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    expect(received).to.deep.equal([
      '{"id":1,"subscribe":{}}',
      shared.payload.toString(),
      text(200).toString(),
      text(70_000).toString(),
      shared.payload.toString(),
    ]);
  });

  it('writes to the socket kept for the connection; with per-message deflate, keeps none and goes through ws.send', async () => {
    expect(directSocketOf(server)).to.equal((server as unknown as { _socket: Duplex })._socket);
    sendPrebuilt(server, prebuildTextFrame(Buffer.from('kept')), directSocketOf(server));
    const deflating = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: true });
    await new Promise((r) => deflating.once('listening', r));
    const accepted = new Promise<WebSocket>((r) => deflating.once('connection', r));
    const other = new WebSocket(`ws://127.0.0.1:${(deflating.address() as AddressInfo).port}`);
    const got = new Promise<string>((r) => other.once('message', (m) => r(m.toString())));
    await new Promise((r) => other.once('open', r));
    const compressed = await accepted;
    expect(compressed.extensions).to.not.equal('');
    expect(directSocketOf(compressed)).to.equal(null);
    sendPrebuilt(compressed, prebuildTextFrame(Buffer.from('deflated')), directSocketOf(compressed));
    expect(await got).to.equal('deflated');
    other.terminate();
    await new Promise((r) => deflating.close(r));
    for (let i = 0; received.length < 1 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    expect(received).to.deep.equal(['kept']);
  });

  it('sends nothing on a socket that is closing', async () => {
    server.close(1000);
    sendPrebuilt(server, prebuildTextFrame(Buffer.from('late')));
    await new Promise((r) => client.once('close', r));
    expect(received).to.deep.equal([]);
  });
});
