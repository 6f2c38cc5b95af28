// Management addresses: each channel gets its own /32 in 10.96.0.0/12, derived from a unique
// index, so a candidate never shares the address of the channel it replaces. The {vpn_host}
// end answers at .1 of the block on both transports.

export const SERVER_TUNNEL_ADDRESS = '10.96.0.1';
export const TUNNEL_NETWORK = '10.96.0.0/12';
/** Indices 0 and 1 are the network and the server; the block holds 2^20 addresses. */
const FIRST_INDEX = 2;
export const LAST_INDEX = (1 << 20) - 2;

export function tunnelAddressOf(index: number): string {
  if (!Number.isInteger(index) || index < FIRST_INDEX || index > LAST_INDEX)
    throw new RangeError(`tunnel address index out of range: ${index}`);
  const n = (10 << 24) + (96 << 16) + index;
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export const FIRST_ADDRESS_INDEX = FIRST_INDEX;
