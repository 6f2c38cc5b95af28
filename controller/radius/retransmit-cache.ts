// A NAS that gets no answer in time sends the same packet again: same source, identifier and
// authenticator. Answering it with the reply already computed (and not deciding twice) keeps
// bookkeeping single. Entries live one to two windows: two maps, the older dropped each window.

export type CachedReply = Buffer | 'pending' | 'dropped';

export class RetransmitCache {
  #current = new Map<string, CachedReply>();
  #previous = new Map<string, CachedReply>();
  #rotatedAt: number;

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#rotatedAt = this.now();
  }

  static key(kind: string, address: string, port: number, packet: Buffer): string {
    // Identifier and Request Authenticator: bytes 1 and 4..19.
    return `${kind}|${address}|${port}|${packet[1]}|${packet.toString('latin1', 4, 20)}`;
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
