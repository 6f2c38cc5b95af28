import { ProtocolError } from './protocol-error.js';

/**
 * Receive-side replay check for one peer in one session: each accepted `seq` must be greater than
 * the last one accepted. Make one per connection (the `sid` changes per connection, so there is
 * nothing to persist). Feed it only envelopes that `openEnvelope` has verified, so a forged frame
 * cannot move the mark.
 */
export class SequenceGuard {
  #last = 0;

  /** Highest sequence number accepted so far (0 before the first). */
  get last(): number {
    return this.#last;
  }

  /**
   * Records `seq` as seen.
   * @throws ProtocolError `REPLAYED_SEQUENCE` when `seq` is not above the last accepted one (replayed,
   *   duplicated or reordered), `BAD_MESSAGE` when it is not an integer ≥ 1.
   */
  accept(seq: number): void {
    if (!Number.isSafeInteger(seq) || seq < 1) {
      throw new ProtocolError('BAD_MESSAGE', `sequence number must be an integer >= 1, got ${String(seq)}`);
    }
    if (seq <= this.#last) {
      throw new ProtocolError('REPLAYED_SEQUENCE', `sequence ${seq} is not above ${this.#last}`);
    }
    this.#last = seq;
  }
}
