// WireGuard keys: Curve25519 pairs from tweetnacl (`nacl.box.keyPair`, the same X25519 WireGuard
// uses; `wg pubkey` gives the same public key for the private one) and 32-byte preshared keys,
// all as WireGuard writes them: base64 of 32 bytes.
import nacl from 'tweetnacl';

export interface WireguardKeys {
  privateKey: string;
  publicKey: string;
  presharedKey: string;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

export function newWireguardKeys(): WireguardKeys {
  const pair = nacl.box.keyPair();
  return {
    privateKey: b64(pair.secretKey),
    publicKey: b64(pair.publicKey),
    presharedKey: b64(nacl.randomBytes(32)),
  };
}

/** The public key of a base64 private key (what `wg pubkey` prints). */
export function publicKeyOf(privateKey: string): string {
  return b64(nacl.box.keyPair.fromSecretKey(Buffer.from(privateKey, 'base64')).publicKey);
}
