// The in-memory tail of a channel: what it proves (publications after a position, without a gap)
// and what it leaves to the database; and the NOTIFY payload that feeds it across instances.
import { expect } from 'chai';
import {
  announcementAfterOffset,
  parseAnnouncement,
} from '../../../controller/modules/realtime/announcement.js';
import { ChannelTail, TAIL_SIZE } from '../../../controller/modules/realtime/channel-tail.js';

const push = (seq: number) => Buffer.from(`{"seq":${seq}}`);
const lines = (tail: ChannelTail, at: number) => tail.frameAfter(at)?.payload.toString().split('\n') ?? null;

describe('realtime channel tail', () => {
  it('serves every position inside it with the publications after it, in order, one frame each', () => {
    const tail = new ChannelTail(10);
    expect(tail.frameAfter(10)).to.equal(null); // nothing after the top
    expect(tail.offer(11, push(11))).to.equal('next');
    expect(tail.offer(12, push(12))).to.equal('next');
    expect(lines(tail, 10)).to.deep.equal(['{"seq":11}', '{"seq":12}']);
    expect(lines(tail, 11)).to.deep.equal(['{"seq":12}']);
    expect(tail.frameAfter(12)).to.equal(null);
    // Below what it holds: the database's business.
    expect(tail.frameAfter(9)).to.equal(null);
    // One frame per position, shared by every subscriber there, until the tail changes.
    expect(tail.frameAfter(10)).to.equal(tail.frameAfter(10));
    const before = tail.frameAfter(10);
    tail.offer(13, push(13));
    expect(tail.frameAfter(10)).to.not.equal(before);
    expect(lines(tail, 10)).to.deep.equal(['{"seq":11}', '{"seq":12}', '{"seq":13}']);
  });

  it('ignores what it already has and restarts at a publication after a gap', () => {
    const tail = new ChannelTail(0);
    tail.offer(1, push(1));
    tail.offer(2, push(2));
    expect(tail.offer(2, push(2))).to.equal('known');
    expect(tail.offer(1, push(1))).to.equal('known');
    expect(lines(tail, 0)).to.deep.equal(['{"seq":1}', '{"seq":2}']);
    expect(tail.offer(5, push(5))).to.equal('gap');
    expect(tail.top).to.equal(5);
    // 3 and 4 are not held: only a subscriber at 4 is served.
    expect(lines(tail, 4)).to.deep.equal(['{"seq":5}']);
    expect(tail.frameAfter(2)).to.equal(null);
    expect(tail.frameAfter(3)).to.equal(null);
    // A late 3 changes nothing (it is below the top).
    expect(tail.offer(3, push(3))).to.equal('known');
    expect(tail.frameAfter(2)).to.equal(null);
  });

  it(`keeps the latest ${TAIL_SIZE}`, () => {
    const tail = new ChannelTail(0);
    for (let seq = 1; seq <= TAIL_SIZE + 10; seq++) tail.offer(seq, push(seq));
    expect(tail.from).to.equal(10);
    expect(tail.frameAfter(9)).to.equal(null);
    expect(lines(tail, 10)).to.have.length(TAIL_SIZE);
    expect(lines(tail, 10)![0]).to.equal('{"seq":11}');
  });

  it('frames its pushes as one text frame', () => {
    const tail = new ChannelTail(0);
    tail.offer(1, push(1));
    const m = tail.frameAfter(0)!;
    expect([...m.frame.subarray(0, 2)]).to.deep.equal([0x81, m.payload.length]);
    expect(m.frame.subarray(2).toString()).to.equal('{"seq":1}');
  });
});

describe('realtime announcement (NOTIFY payload, ids only)', () => {
  for (const channel of ['support:presence', 'lobby', 'with space:x y', 'support:é']) {
    it(`carries the offset and ${channel}, nothing else`, () => {
      const payload = `42 ${announcementAfterOffset(channel)}`;
      expect(payload).to.equal(`42 ${channel.length} ${channel}`);
      expect(parseAnnouncement(payload)).to.deep.equal({ seq: 42, channel });
    });
  }

  for (const bad of ['', '7', '7 support:presence', 'x 3 abc', '7 99 abc', '7 0 ', '7 3 abc{"data":1}']) {
    it(`refuses ${JSON.stringify(bad)}`, () => {
      expect(parseAnnouncement(bad)).to.equal(null);
    });
  }
});
