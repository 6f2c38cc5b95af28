// A NAS that gets no answer in time sends the same packet again: same source, identifier and
// authenticator. Answering it with the reply already computed (and not deciding twice) keeps
// bookkeeping single. Entries live one to two windows: two maps, the older dropped each window.

export type CachedReply = Buffer | 'pending' | 'dropped';

// Addresses are IP literals or a relay identity (`agent:<uuid>`): far under the room left here.
const KEY = Buffer.alloc(20 + 256);

export class RetransmitCache {
  #current = new Map<string, CachedReply>();
  #previous = new Map<string, CachedReply>();
  #rotatedAt: number;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#rotatedAt = this.now();
  }

  /**
   * Source, identifier and Request Authenticator (bytes 1 and 4..19) as one flat string: laid out
   * in a buffer and read back once, rather than a concatenation (a tree of strings that every
   * entry kept alive for the whole window, and that the young-generation GC copied twice).
   */
  static key(kind: string, address: string, port: number, packet: Buffer): string {
    if (Buffer.byteLength(address) > KEY.length - 20) {
      return `${kind}|${address}|${port}|${packet[1]}|${packet.toString('latin1', 4, 20)}`;
    }
    const k = KEY;
    k[0] = kind === 'auth' ? 1 : 2;
    k.writeUInt16BE(port & 0xffff, 1);
    k[3] = packet[1]!;
    packet.copy(k, 4, 4, 20);
    const end = 20 + k.write(address, 20, 'utf8');
    return k.toString('latin1', 0, end);
  }

  get(key: string): CachedReply | undefined {
    this.#rotate();
    return this.#current.get(key) ?? this.#previous.get(key);
  }

  set(key: string, value: CachedReply): void {
    this.#rotate();
    this.#current.set(key, value);
  }

  delete(key: string): void {
    this.#current.delete(key);
    this.#previous.delete(key);
  }

  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  #rotate(): void {
    const now = this.now();
    if (now - this.#rotatedAt < this.windowMs) return;
    // Two windows without traffic: everything is older than the window.
    this.#previous = now - this.#rotatedAt < 2 * this.windowMs ? this.#current : new Map();
    this.#current = new Map();
    this.#rotatedAt = now;
  }
}
