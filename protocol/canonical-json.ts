/**
 * Deterministic JSON text of `value`, the exact bytes (as UTF-8) that envelope signatures cover.
 *
 * Same rules as `JSON.stringify` (toJSON, undefined/function/symbol properties dropped, non-finite
 * numbers as null, `undefined` array items as null) except: object keys are sorted by UTF-16 code
 * units and there is no whitespace. Because the rules otherwise match, a value and its JSON round
 * trip give the same text: `canonicalJson(x) === canonicalJson(JSON.parse(JSON.stringify(x)))`,
 * which is what lets the receiver re-derive the signed text from the frame it parsed.
 *
 * @throws TypeError for a top-level value with no JSON form, a cycle, or a bigint.
 */
export function canonicalJson(value: unknown): string {
  const text = encode(value, '', []);
  if (text === undefined) throw new TypeError('canonicalJson: value has no JSON form');
  return text;
}

// Returns undefined where JSON.stringify would leave the value out.
function encode(input: unknown, key: string, ancestors: object[]): string | undefined {
  let value = input;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  // Boxed primitives serialise as their primitive, as in JSON.stringify.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();

  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: bigint has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return 'null';

  const object = value as object;
  if (ancestors.includes(object)) throw new TypeError('canonicalJson: cyclic structure');
  ancestors.push(object);
  try {
    if (Array.isArray(object)) {
      const items = object.map((item: unknown, index) => encode(item, String(index), ancestors) ?? 'null');
      return `[${items.join(',')}]`;
    }
    const record = object as Record<string, unknown>;
    const members: string[] = [];
    for (const name of Object.keys(record).sort()) {
      const member = encode(record[name], name, ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    ancestors.pop();
  }
}
