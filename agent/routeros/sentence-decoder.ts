// RouterOS API wire format: a sentence is a list of length-prefixed words
// ended by a zero-length word. Words stay Buffers here: text is decoded later
// by the caller, and /file/read data is binary.

/** A word longer than this is treated as a corrupt stream, not buffered. */
export const MAX_WORD_BYTES = 64 * 1024 * 1024;

/** The byte stream is not RouterOS API framing (reserved control byte, absurd length). */
export class ApiFramingError extends Error {
  override readonly name = 'ApiFramingError';
}

/** Encodes a word length with the 1–5 byte RouterOS scheme. */
export function encodeLength(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`invalid word length ${n}`);
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x4000) return Buffer.from([(n >>> 8) | 0x80, n & 0xff]);
  if (n < 0x200000) return Buffer.from([(n >>> 16) | 0xc0, (n >>> 8) & 0xff, n & 0xff]);
  if (n < 0x10000000) return Buffer.from([(n >>> 24) | 0xe0, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  return Buffer.from([0xf0, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

/** Encodes a whole sentence, terminating empty word included. */
export function encodeSentence(words: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const word of words) parts.push(encodeLength(word.length), word);
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** Size of the length prefix announced by its first byte. */
function prefixSize(first: number): number {
  if ((first & 0x80) === 0) return 1;
  if ((first & 0xc0) === 0x80) return 2;
  if ((first & 0xe0) === 0xc0) return 3;
  if ((first & 0xf0) === 0xe0) return 4;
  if (first === 0xf0) return 5;
  throw new ApiFramingError(`reserved control byte 0x${first.toString(16)}`);
}

/**
 * Incremental decoder: push socket chunks in any split, get complete
 * sentences out. Chunks are joined only once a whole word is available, so
 * a large word arriving in many chunks costs one copy, not one per chunk.
 */
export class SentenceDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes needed before the next word can be decoded. */
  private needed = 1;
  private words: Buffer[] = [];

  /** Returns the sentences completed by this chunk; throws ApiFramingError on a corrupt stream. */
  push(chunk: Buffer): Buffer[][] {
    if (chunk.length === 0) return [];
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.needed) return [];
    let data =
      this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
    const sentences: Buffer[][] = [];
    let offset = 0;
    for (;;) {
      const first = data[offset];
      if (first === undefined) {
        this.needed = 1;
        break;
      }
      const size = prefixSize(first);
      if (data.length < offset + size) {
        this.needed = size;
        break;
      }
      let length = size === 5 ? 0 : first & (0xff >>> size);
      // multiply rather than shift so 32-bit lengths stay positive
      for (let i = 1; i < size; i++) length = length * 256 + (data[offset + i] ?? 0);
      if (length > MAX_WORD_BYTES) throw new ApiFramingError(`word of ${length} bytes`);
      const end = offset + size + length;
      if (end > data.length) {
        this.needed = end - offset;
        break;
      }
      if (length === 0) {
        sentences.push(this.words);
        this.words = [];
      } else {
        this.words.push(data.subarray(offset + size, end));
      }
      offset = end;
    }
    data = data.subarray(offset);
    this.chunks = data.length === 0 ? [] : [data];
    this.buffered = data.length;
    return sentences;
  }
}
