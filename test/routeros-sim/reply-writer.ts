// Writes reply bytes to an API socket. Normally one write per sentence; with
// the fragmentReplies fault every sentence is cut at random points (inside
// length prefixes and words too) and the pieces go out as separate writes a
// tick apart, so the client's decoder has to reassemble them. Order is kept
// across sentences, and end() waits for what is still queued.
import type { Socket } from 'node:net';
import type { FaultController } from './faults.js';
import type { Prng } from './prng.js';

export class ReplyWriter {
  private queue: Array<Buffer | 'end'> = [];
  private draining = false;

  constructor(
    private readonly socket: Socket,
    private readonly faults: FaultController,
    private readonly rng: Prng,
  ) {}

  write(bytes: Buffer): void {
    const max = this.faults.fragmentBytes();
    if (max === undefined && this.queue.length === 0 && !this.draining) {
      this.socket.write(bytes);
      return;
    }
    if (max === undefined) {
      this.queue.push(bytes);
    } else {
      for (let at = 0; at < bytes.length;) {
        const size = this.rng.int(1, max);
        this.queue.push(bytes.subarray(at, at + size));
        at += size;
      }
    }
    this.drain();
  }

  /** Half-closes the socket once everything queued has been written. */
  end(): void {
    if (this.queue.length === 0 && !this.draining) {
      this.socket.end();
      return;
    }
    this.queue.push('end');
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    const step = (): void => {
      const next = this.queue.shift();
      if (next === undefined || this.socket.destroyed) {
        this.draining = false;
        this.queue = [];
        return;
      }
      if (next === 'end') this.socket.end();
      else this.socket.write(next);
      setImmediate(step);
    };
    step();
  }
}
