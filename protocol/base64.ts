/**
 * Decodes standard, padded base64 and refuses anything else (URL alphabet, missing padding,
 * stray characters), so one byte string has exactly one accepted text form on the wire.
 * Returns undefined for text that is not canonical base64.
 */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  const bytes = Buffer.from(text, 'base64');
  // Buffer's decoder silently skips junk; re-encoding exposes it.
  if (bytes.toString('base64') !== text) return undefined;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Standard padded base64 of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
