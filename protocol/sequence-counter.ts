/**
 * Send-side sequence numbers for one session: 1, 2, 3, …. Make one per connection. The controller's
 * challenge takes 1 from its counter, so its next message is 2.
 */
export class SequenceCounter {
  #last = 0;

  /** The last number handed out (0 before the first). */
  get current(): number {
    return this.#last;
  }

  /** The next sequence number; never repeats within this counter. */
  next(): number {
    this.#last += 1;
    return this.#last;
  }
}
