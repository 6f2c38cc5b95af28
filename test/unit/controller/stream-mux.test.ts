import { expect } from 'chai';
import sinon from 'sinon';
import { CONTROLLER_STREAM_WINDOW, StreamMux, StreamOpenError } from '../../../controller/hub/stream-mux.js';
import { STREAM_CHUNK_BYTES, STREAM_EARLY_BYTES, STREAM_LARGE_CHUNK_BYTES } from '../../../protocol/index.js';

type Sent = { type: string; body: Record<string, unknown> };

function mux() {
  const sent: Sent[] = [];
  const m = new StreamMux((type, body) => sent.push({ type, body: body as Record<string, unknown> }));
  const bytes = (id: string) =>
    sent
      .filter((s) => s.type === 'stream_data' && s.body.id === id)
      .reduce((n, s) => n + Buffer.from(s.body.data as string, 'base64').length, 0);
  const credits = (id: string) =>
    sent.filter((s) => s.type === 'stream_credit' && s.body.id === id).map((s) => s.body.bytes as number);
  return { m, sent, bytes, credits };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('controller byte streams (StreamMux)', () => {
  it('sends the early bytes with the opening, the rest once the agent grants its window', async () => {
    const { m, sent, bytes } = mux();
    const stream = m.open(8080);
    expect(sent[0]).to.deep.include({ type: 'stream_open' });
    expect(sent[0]!.body).to.include({ port: 8080, window: CONTROLLER_STREAM_WINDOW });
    const id = stream.id;
    let written = false;
    stream.write(Buffer.alloc(STREAM_EARLY_BYTES + 1000, 1), () => (written = true));
    await tick();
    // no more than the early allowance before `stream_opened`; the writer waits
    expect(bytes(id)).to.equal(STREAM_EARLY_BYTES);
    expect(written).to.equal(false);
    m.receive({ type: 'stream_opened', body: { id, window: 512 * 1024 } } as never);
    await tick();
    expect(bytes(id)).to.equal(STREAM_EARLY_BYTES + 1000);
    expect(written).to.equal(true);
    stream.destroy();
  });

  it('never sends past the window: 512 KiB in all until credit comes back', async () => {
    const { m, bytes } = mux();
    const stream = m.open(80);
    m.receive({ type: 'stream_opened', body: { id: stream.id, window: 512 * 1024 } } as never);
    stream.write(Buffer.alloc(600 * 1024, 2));
    await tick();
    expect(bytes(stream.id)).to.equal(512 * 1024);
    m.receive({ type: 'stream_credit', body: { id: stream.id, bytes: 100 * 1024 } } as never);
    await tick();
    expect(bytes(stream.id)).to.equal(600 * 1024);
    stream.destroy();
  });

  it('grants credit in quarter-window steps, and only once the reader has taken the bytes', async () => {
    const { m, credits } = mux();
    const stream = m.open(80);
    const id = stream.id;
    m.receive({ type: 'stream_opened', body: { id, window: 512 * 1024 } } as never);
    const chunk = Buffer.alloc(60 * 1024, 3).toString('base64');
    // a small answer costs no credit frame
    m.receive({ type: 'stream_data', body: { id, data: chunk } } as never);
    expect(credits(id)).to.deep.equal([]);
    // nobody reads: the bytes are owed, not granted, past the stream's buffer
    for (let i = 0; i < 4; i++) m.receive({ type: 'stream_data', body: { id, data: chunk } } as never);
    expect(credits(id)).to.deep.equal([]);
    // the reader catches up: what it took is granted back in one step
    let read = 0;
    stream.on('data', (c: Buffer) => (read += c.length));
    await tick();
    expect(read).to.equal(5 * 60 * 1024);
    expect(credits(id)).to.deep.equal([5 * 60 * 1024]);
    stream.destroy();
  });

  it('a refused opening destroys the stream with the reason; the link going ends every stream', async () => {
    const { m } = mux();
    const refused = m.open(80);
    const errors: StreamOpenError[] = [];
    refused.on('error', (e: StreamOpenError) => errors.push(e));
    m.receive({
      type: 'stream_close',
      body: { id: refused.id, reason: 'refused', message: 'ECONNREFUSED' },
    } as never);
    await tick();
    expect(errors[0]).to.be.instanceOf(StreamOpenError);
    expect(errors[0]!.reason).to.equal('refused');
    expect(m.size).to.equal(0);

    const open = m.open(80);
    m.closeAll();
    await tick();
    expect(open.destroyed).to.equal(true);
    expect(m.size).to.equal(0);
  });

  it('times out as a socket does: once per idle spell, later by activity, never once set to 0', () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { m } = mux();
      const stream = m.open(80);
      let timeouts = 0;
      stream.on('timeout', () => timeouts++);
      stream.setTimeout(1000);
      clock.tick(600);
      // bytes from the agent: the idle time starts again
      m.receive({ type: 'stream_data', body: { id: stream.id, data: 'aGk=' } } as never);
      clock.tick(600);
      expect(timeouts).to.equal(0);
      clock.tick(400);
      expect(timeouts).to.equal(1);
      clock.tick(5000);
      expect(timeouts, 'not again while nothing happens').to.equal(1);
      stream.write(Buffer.from('x'));
      clock.tick(1000);
      expect(timeouts, 'idle again after a write').to.equal(2);
      const callback = sinon.spy();
      stream.setTimeout(1000, callback);
      stream.setTimeout(0, callback);
      clock.tick(5000);
      expect(callback.called).to.equal(false);
      expect(timeouts).to.equal(2);
      stream.destroy();
    } finally {
      clock.restore();
    }
  });

  it('sends writes queued together as one frame per chunk size, bytes and order kept', async () => {
    const { m, sent } = mux();
    m.rawBytes = true;
    const stream = m.open(80);
    m.receive({ type: 'stream_opened', body: { id: stream.id, window: 4 * 1024 * 1024 } } as never);
    const data = (id: string) =>
      sent.filter((s) => s.type === 'stream_data' && s.body.id === id).map((s) => s.body.data as Buffer);
    // an HTTP client's head and body of one tick: corked, then sent together
    const parts = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
    stream.cork();
    for (const part of parts) stream.write(part);
    stream.uncork();
    await tick();
    expect(data(stream.id)).to.have.length(1);
    expect(Buffer.concat(data(stream.id)).equals(Buffer.concat(parts))).to.equal(true);
    // a large write: 64 KiB frames to an agent that did not name stream.large, 256 KiB to one that did
    const big = Buffer.from(Array.from({ length: 600 * 1024 }, (_, i) => (i * 7) & 0xff));
    for (const large of [false, true]) {
      m.largeChunks = large;
      sent.splice(0);
      stream.write(big);
      await tick();
      const frames = data(stream.id);
      expect(Math.max(...frames.map((f) => f.length))).to.equal(
        large ? STREAM_LARGE_CHUNK_BYTES : STREAM_CHUNK_BYTES,
      );
      expect(Buffer.concat(frames).equals(big)).to.equal(true);
      m.receive({ type: 'stream_credit', body: { id: stream.id, bytes: big.length } } as never);
    }
    stream.destroy();
  });
});
