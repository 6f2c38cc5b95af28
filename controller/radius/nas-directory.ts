// Which NAS a packet comes from. RADIUS identifies a client by its source address and proves it
// with the shared secret, so the directory maps an address to the NAS, its tenant and secret.
// The NAS module (enrolment, topology) provides the real one; this file holds the contract and a
// fixed in-memory directory for tests, benchmarks and a NAS configured by hand.

export interface NasEntry {
  nasId: string;
  clientId: string;
  secret: string;
}

export interface NasDirectory {
  /** The NAS behind a source address, or null: packets of an unknown NAS are dropped unanswered. */
  lookup(sourceIp: string): Promise<NasEntry | null>;
}

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) is the IPv4 address. */
export const normaliseIp = (ip: string): string =>
  ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;

export class StaticNasDirectory implements NasDirectory {
  readonly #byIp = new Map<string, NasEntry>();

  constructor(entries: Iterable<readonly [ip: string, entry: NasEntry]> = []) {
    for (const [ip, entry] of entries) this.set(ip, entry);
  }

  set(ip: string, entry: NasEntry): void {
    this.#byIp.set(normaliseIp(ip), { ...entry });
  }

  delete(ip: string): void {
    this.#byIp.delete(normaliseIp(ip));
  }

  lookup(sourceIp: string): Promise<NasEntry | null> {
    return Promise.resolve(this.#byIp.get(normaliseIp(sourceIp)) ?? null);
  }
}
