// RouterOS API `?` queries. Each query word pushes one boolean per record on
// a stack; `?#` words combine the stack; the record matches when every value
// left on the stack is true.
import { parseId } from './ros-format.js';

export type RecordView = Readonly<Record<string, string>>;
type Step = (view: RecordView, stack: boolean[]) => void;

export class QueryError extends Error {}

/** Compiles query words (without their leading "?") into a predicate. */
export function compileQuery(
  words: readonly string[],
  booleans: readonly string[] = [],
): (view: RecordView) => boolean {
  const steps = words.map((w) => compileWord(w, booleans));
  return (view) => {
    const stack: boolean[] = [];
    for (const step of steps) step(view, stack);
    return stack.every(Boolean);
  };
}

function compileWord(word: string, booleans: readonly string[]): Step {
  if (word.startsWith('#')) return compileOps(word.slice(1));
  if (word.startsWith('-')) {
    const name = word.slice(1);
    return (v, s) => void s.push(!(name in v));
  }
  let op: '=' | '<' | '>' = '=';
  let rest = word;
  if (word.startsWith('<') || word.startsWith('>') || word.startsWith('=')) {
    op = word[0] as '=' | '<' | '>';
    rest = word.slice(1);
  }
  const eq = rest.indexOf('=');
  if (eq < 0) {
    // "?name" tests presence; "?<name" without a value is not meaningful
    if (op !== '=') throw new QueryError(`invalid query ${word}`);
    return (v, s) => void s.push(rest in v);
  }
  const name = rest.slice(0, eq);
  let value = rest.slice(eq + 1);
  if (booleans.includes(name)) value = value === 'yes' ? 'true' : value === 'no' ? 'false' : value;
  if (op === '=') return (v, s) => void s.push(v[name] === value || sameId(name, v[name], value));
  const sign = op === '<' ? -1 : 1;
  return (v, s) => {
    const have = v[name];
    s.push(have !== undefined && compare(name, have, value) * sign > 0);
  };
}

type Word = { ops: string } | { eq: { name: string; value: string } } | { other: true };

function parseWord(word: string): Word {
  if (word.startsWith('#')) return { ops: word.slice(1) };
  if (word.startsWith('-') || word.startsWith('<') || word.startsWith('>')) return { other: true };
  const rest = word.startsWith('=') ? word.slice(1) : word;
  const eq = rest.indexOf('=');
  return eq < 0 ? { other: true } : { eq: { name: rest.slice(0, eq), value: rest.slice(eq + 1) } };
}

/**
 * Values one of which `prop` holds in every entry the query matches, when the words say so
 * plainly: tests all ANDed (no `?#`) and one of them `prop=value`; or `prop=v1 … prop=vk` first,
 * folded by `?#` and k−1 `|`, then tests ANDed. Undefined for any other query (it must be tried
 * on every entry). The matches are the same either way: this only spares reading the others.
 */
export function requiredValues(
  words: readonly string[],
  prop: string,
  booleans: readonly string[] = [],
): string[] | undefined {
  // booleans are normalised and ids compared by number: the plain value is not what is held
  if (prop === '.id' || booleans.includes(prop)) return undefined;
  const parsed = words.map(parseWord);
  const onProp = (w: Word | undefined) =>
    w !== undefined && 'eq' in w && w.eq.name === prop ? w.eq : undefined;
  const firstOps = parsed.findIndex((w) => 'ops' in w);
  if (firstOps < 0) {
    const test = parsed.map(onProp).find((t) => t !== undefined);
    return test ? [test.value] : undefined;
  }
  const values: string[] = [];
  for (let i = 0; i < firstOps; i++) {
    const test = onProp(parsed[i]);
    if (!test) return undefined;
    values.push(test.value);
  }
  const folds = parsed[firstOps] as { ops: string };
  if (values.length < 2 || folds.ops !== '|'.repeat(values.length - 1)) return undefined;
  if (parsed.slice(firstOps + 1).some((w) => 'ops' in w)) return undefined;
  return values;
}

function compileOps(ops: string): Step {
  return (_v, s) => {
    for (const c of ops) {
      if (c === '!') s.push(!pop(s));
      else if (c === '&') s.push(pop(s) && pop(s));
      else if (c === '|') {
        const a = pop(s);
        const b = pop(s);
        s.push(a || b);
      } else if (c === '.') {
        const top = pop(s);
        s.push(top, top);
      } else if (c >= '0' && c <= '9') {
        // push a copy of the value at that index, counted from the bottom
        s.push(s[Number(c)] ?? false);
      } else throw new QueryError(`unknown query operation ${c}`);
    }
  };
}

function pop(stack: boolean[]): boolean {
  // RouterOS treats a missing operand as true, so "?#|" on a short stack is harmless
  return stack.length > 0 ? (stack.pop() as boolean) : true;
}

function sameId(name: string, have: string | undefined, want: string): boolean {
  if (name !== '.id' || have === undefined) return false;
  return parseId(have) !== undefined && parseId(have) === parseId(want);
}

function compare(name: string, a: string, b: string): number {
  if (name === '.id') {
    const x = parseId(a);
    const y = parseId(b);
    if (x !== undefined && y !== undefined) return x - y;
  }
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}
