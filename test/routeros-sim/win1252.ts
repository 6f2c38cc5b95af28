// Windows-1252 text codec. RouterOS stores and sends bytes, and node-routeros
// encodes what it sends and decodes what it receives as win1252, so the
// simulator does the same to round-trip accented comments (e.g. "réseau").
// The five bytes win1252 leaves undefined (0x81 0x8D 0x8F 0x90 0x9D) map to
// the same-numbered C1 code points here so the simulator itself never loses a
// byte; node-routeros (iconv-lite) turns them into U+FFFD instead.

const HIGH: readonly number[] = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d,
  0x017d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0x9d, 0x017e, 0x0178,
];

const REVERSE = new Map<number, number>(HIGH.map((cp, i) => [cp, 0x80 + i]));

/** Bytes that node-routeros cannot bring back from a word (they become U+FFFD). */
export const WIN1252_UNDEFINED_BYTES: readonly number[] = [0x81, 0x8d, 0x8f, 0x90, 0x9d];

export function decodeWin1252(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    out += String.fromCharCode(b >= 0x80 && b < 0xa0 ? (HIGH[b - 0x80] ?? b) : b);
  }
  return out;
}

export function encodeWin1252(text: string): Buffer {
  const out = Buffer.alloc(text.length);
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0x3f;
    const mapped = REVERSE.get(cp);
    if (mapped !== undefined) out[n++] = mapped;
    else if (cp < 0x80 || (cp >= 0xa0 && cp <= 0xff)) out[n++] = cp;
    else out[n++] = 0x3f; // '?', as iconv-lite does for unmappable characters
  }
  return out.subarray(0, n);
}
