// RouterOS API wire codec: a sentence is a list of length-prefixed words
// terminated by a zero-length word. Words stay raw Buffers on the decode side
// because /file/read data and FTP-bound file contents may be binary.
// Strings are encoded as Windows-1252, like node-routeros and RouterOS itself.

import { decodeWin1252, encodeWin1252 } from './win1252.js';

/** Encodes a word length with the RouterOS 1–5 byte variable-length scheme. */
export function encodeLength(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new RangeError(`invalid RouterOS word length ${n}`);
  }
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x4000) return Buffer.from([(n >>> 8) | 0x80, n & 0xff]);
  if (n < 0x200000) {
    return Buffer.from([(n >>> 16) | 0xc0, (n >>> 8) & 0xff, n & 0xff]);
  }
  if (n < 0x10000000) {
    return Buffer.from([(n >>> 24) | 0xe0, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  }
  return Buffer.from([0xf0, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

/**
 * Decodes a length prefix at `offset`. Returns undefined when the buffer does
 * not yet hold the whole prefix (TCP may split it).
 */
export function decodeLength(buf: Buffer, offset = 0): { length: number; size: number } | undefined {
  const b = buf[offset];
  if (b === undefined) return undefined;
  let size: number;
  if ((b & 0x80) === 0) size = 1;
  else if ((b & 0xc0) === 0x80) size = 2;
  else if ((b & 0xe0) === 0xc0) size = 3;
  else if ((b & 0xf0) === 0xe0) size = 4;
  else if (b === 0xf0) size = 5;
  else throw new Error(`reserved RouterOS control byte 0x${b.toString(16)}`);
  if (buf.length < offset + size) return undefined;
  let length = size === 5 ? 0 : b & (0xff >>> size);
  for (let i = 1; i < size; i++) {
    // multiply rather than shift so 32-bit lengths stay positive
    length = length * 256 + (buf[offset + i] ?? 0);
  }
  return { length, size };
}

/** Encodes one word; strings are sent as Windows-1252 bytes. */
export function encodeWord(word: string | Buffer): Buffer {
  const bytes = typeof word === 'string' ? encodeWin1252(word) : word;
  return Buffer.concat([encodeLength(bytes.length), bytes]);
}

/** Encodes a full sentence, including the terminating empty word. */
export function encodeSentence(words: readonly (string | Buffer)[]): Buffer {
  return Buffer.concat([...words.map((w) => encodeWord(w)), Buffer.from([0])]);
}

/** Incremental decoder: feed socket chunks, get complete sentences back. */
export class SentenceDecoder {
  private pending: Buffer = Buffer.alloc(0);
  private words: Buffer[] = [];

  push(chunk: Buffer): Buffer[][] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const sentences: Buffer[][] = [];
    let offset = 0;
    for (;;) {
      const prefix = decodeLength(this.pending, offset);
      if (!prefix) break;
      const end = offset + prefix.size + prefix.length;
      if (end > this.pending.length) break;
      if (prefix.length === 0) {
        sentences.push(this.words);
        this.words = [];
      } else {
        // copy so callers may keep words after the pending buffer is dropped
        this.words.push(Buffer.from(this.pending.subarray(offset + prefix.size, end)));
      }
      offset = end;
    }
    this.pending = this.pending.subarray(offset);
    return sentences;
  }
}

/** Convenience for tests and logs: words as strings (Windows-1252). */
export function sentenceToStrings(sentence: readonly Buffer[]): string[] {
  return sentence.map((w) => decodeWin1252(w));
}
