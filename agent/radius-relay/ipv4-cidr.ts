// IPv4 CIDR blocks for the relay's allow-list. IPv4 only: the relay listens on udp4, as RouterOS
// hotspots reach their RADIUS server over IPv4.

export interface Ipv4Block {
  network: number;
  mask: number;
  text: string;
}

/** `a.b.c.d` as an unsigned 32-bit number, or undefined when it is not a dotted IPv4 address. */
export function ipv4ToNumber(text: string): number | undefined {
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
  const bare = text.startsWith('::ffff:') ? text.slice(7) : text;
  const parts = bare.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value >>> 0;
}

/** `192.168.88.0/24` or a bare address (a /32); undefined when malformed. */
export function parseIpv4Block(text: string): Ipv4Block | undefined {
  const [address, bits, extra] = text.trim().split('/');
  if (address === undefined || extra !== undefined) return undefined;
  const base = ipv4ToNumber(address);
  const length = bits === undefined ? 32 : /^\d{1,2}$/.test(bits) ? Number(bits) : NaN;
  if (base === undefined || !(length >= 0 && length <= 32)) return undefined;
  // `<< 32` is a no-op in JavaScript, so /0 is spelled out.
  const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
  return { network: (base & mask) >>> 0, mask, text: text.trim() };
}

/** True when `address` is inside one of the blocks; an empty list allows every source. */
export function allowed(blocks: readonly Ipv4Block[], address: string): boolean {
  return blocks.length === 0 || inBlocks(blocks, address);
}

/** True when `address` is inside one of the blocks; an empty list holds nothing. */
export function inBlocks(blocks: readonly Ipv4Block[], address: string): boolean {
  const value = ipv4ToNumber(address);
  if (value === undefined) return false;
  return blocks.some((b) => (value & b.mask) >>> 0 === b.network);
}
