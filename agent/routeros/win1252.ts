// Windows-1252 text codec for RouterOS API words. RouterOS stores bytes, and
// the tools that edit hotspot users (Winbox, node-routeros) write Windows-1252.
// The five bytes Windows-1252 leaves undefined (0x81 0x8D 0x8F 0x90 0x9D) map
// to the C1 code points of the same number, so every byte string survives
// decode → encode unchanged (iconv-lite turns them into U+FFFD instead).

const HIGH: readonly number[] = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d,
  0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0x9d, 0x017e, 0x0178,
];

const FROM_CODE_POINT = new Map<number, number>(HIGH.map((cp, i) => [cp, 0x80 + i]));

/** Decodes bytes as Windows-1252; lossless (see the note on undefined bytes above). */
export function decodeWin1252(bytes: Uint8Array): string {
  // pure ASCII is by far the common case: let Buffer do it in one go
  if (bytes.every((b) => b < 0x80))
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  let out = '';
  for (const b of bytes) out += String.fromCharCode(b >= 0x80 && b < 0xa0 ? (HIGH[b - 0x80] ?? b) : b);
  return out;
}

/** Encodes text as Windows-1252; characters it cannot represent become '?', as RouterOS tools do. */
export function encodeWin1252(text: string): Buffer {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0x3f;
    const mapped = FROM_CODE_POINT.get(cp);
    if (mapped !== undefined) out[n++] = mapped;
    else if (cp < 0x80 || (cp >= 0xa0 && cp <= 0xff)) out[n++] = cp;
    else out[n++] = 0x3f;
  }
  return out.subarray(0, n);
}
