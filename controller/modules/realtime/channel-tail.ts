// The latest publications of one channel this instance knows without a gap, kept in memory as
// push frames: a subscriber whose offset falls inside it is caught up from here, without reading
// the database. The database stays the reference: whatever the tail cannot prove (a gap, a
// position older than the tail) is read there.
import { prebuildTextFrame, type PrebuiltFrame } from './prebuilt-frame.js';

/** Publications kept per channel (enough for bursts; older positions are read from the database). */
export const TAIL_SIZE = 256;
const NEWLINE = Buffer.from('\n');

export class ChannelTail {
  /** Push objects (JSON, one per publication) for offsets top - length + 1 … top. */
  #pushes: Buffer[] = [];
  #top: number;
  /** Frames built since the last change, by the offset they start after. */
  readonly #frames = new Map<number, PrebuiltFrame>();

  /** A tail that knows the channel up to `top` and holds nothing yet. */
  constructor(top: number) {
    this.#top = top;
  }

  get top(): number {
    return this.#top;
  }

  /** Lowest offset `at` from which the tail can serve a subscriber. */
  get from(): number {
    return this.#top - this.#pushes.length;
  }

  /**
   * Takes the publication at `seq`: appended when it follows the top ('next'), ignored when
   * already known ('known'); a later one ('gap') restarts the tail at it, as nothing proves what
   * lies between (a subscriber behind it is then read from the database).
   */
  offer(seq: number, push: Buffer): 'next' | 'known' | 'gap' {
    if (seq <= this.#top) return 'known';
    const outcome = seq === this.#top + 1 ? 'next' : 'gap';
    if (outcome === 'gap') this.#pushes = [];
    this.#pushes.push(push);
    if (this.#pushes.length > TAIL_SIZE) this.#pushes.splice(0, this.#pushes.length - TAIL_SIZE);
    this.#top = seq;
    this.#frames.clear();
    return outcome;
  }

  /**
   * The frame holding every publication after `at` up to the top (one push per line), built once
   * for every subscriber at that position; null when `at` is not inside the tail.
   */
  frameAfter(at: number): PrebuiltFrame | null {
    if (at >= this.#top || at < this.from) return null;
    let frame = this.#frames.get(at);
    if (!frame) {
      const parts: Buffer[] = [];
      for (let i = at - this.from; i < this.#pushes.length; i++) {
        if (parts.length > 0) parts.push(NEWLINE);
        parts.push(this.#pushes[i]!);
      }
      frame = prebuildTextFrame(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
      this.#frames.set(at, frame);
    }
    return frame;
  }
}
