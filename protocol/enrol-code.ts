// Any Unicode whitespace and the hyphen/dash characters people and word processors type.
const SEPARATORS = /[\s\u002d\u2010-\u2015\u2212\ufe63\uff0d]/gu;

/**
 * Normalises an enrolment code as a human typed or pasted it: separators (spaces, tabs, dashes of
 * any kind) removed and letters upper-cased, so `abcd-efgh 23` and `ABCDEFGH23` are the same code.
 * Both ends call it: the agent before sending `enrol`, the controller before looking the code up.
 * It does not judge the result; the `enrol` schema refuses anything outside `[A-Z0-9]{4,64}`.
 */
export function normaliseEnrolCode(input: string): string {
  // Printable ASCII is its own NFKC form: skipping normalize() then spares the agent ICU's
  // normalisation data (loaded on the first call, and kept).
  const folded = PRINTABLE_ASCII.test(input) ? input : input.normalize('NFKC');
  return folded.replace(SEPARATORS, '').toUpperCase();
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
