// Seeded PRNG so every simulated router built from the same serial has the
// same users, ids and backup bytes, and tests stay repeatable.

export class Prng {
  private s: number;

  constructor(seed: string | number) {
    this.s = typeof seed === 'number' ? seed >>> 0 : fnv1a(seed);
  }

  /** Float in [0, 1) (mulberry32). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(minInclusive: number, maxInclusive: number): number {
    return minInclusive + Math.floor(this.next() * (maxInclusive - minInclusive + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from empty list');
    return item;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  string(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  bytes(length: number): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = Math.floor(this.next() * 256);
    return out;
  }

  mac(prefix = ''): string {
    const parts = prefix ? prefix.split(':') : [];
    // first octet of a random MAC: unicast, locally administered (as phones randomise it)
    if (parts.length === 0) parts.push(((this.int(0, 255) & 0xfc) | 0x02).toString(16).padStart(2, '0'));
    while (parts.length < 6) parts.push(this.int(0, 255).toString(16).padStart(2, '0'));
    return parts.join(':').toUpperCase();
  }
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
