import { expect } from 'chai';
import { canonicalJson } from '../../../protocol/index.js';

describe('protocol canonicalJson', () => {
  const exact: Array<[string, unknown, string]> = [
    ['sorts keys', { b: 1, a: 2 }, '{"a":2,"b":1}'],
    [
      'sorts nested keys',
      { z: { y: 1, x: [{ d: 1, c: 2 }] }, a: null },
      '{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}',
    ],
    ['drops undefined members', { a: undefined, b: 1 }, '{"b":1}'],
    ['drops function members', { a: () => 1, b: true }, '{"b":true}'],
    ['writes undefined array items as null', [1, undefined, 2], '[1,null,2]'],
    ['writes non-finite numbers as null', [Number.NaN, Infinity], '[null,null]'],
    ['keeps array order', [3, 1, 2], '[3,1,2]'],
    ['uses toJSON', { at: new Date('2025-01-02T03:04:05.000Z') }, '{"at":"2025-01-02T03:04:05.000Z"}'],
    ['escapes strings like JSON', { 'k"\n': 'é\u2028' }, '{"k\\"\\n":"é\u2028"}'],
    ['sorts by UTF-16 code unit, not locale', { b: 1, B: 2, é: 3, a: 4 }, '{"B":2,"a":4,"b":1,"é":3}'],
    ['handles primitives', 'x', '"x"'],
    ['handles an empty object', {}, '{}'],
  ];
  for (const [name, input, expected] of exact) {
    it(name, () => expect(canonicalJson(input)).to.equal(expected));
  }

  const sameText: Array<[string, unknown, unknown]> = [
    ['flat', { a: 1, b: 2, c: 3 }, { c: 3, a: 1, b: 2 }],
    ['nested', { o: { p: 1, q: [1, { r: 1, s: 2 }] } }, { o: { q: [1, { s: 2, r: 1 }], p: 1 } }],
    ['with undefined', { a: 1, b: undefined }, { a: 1 }],
  ];
  for (const [name, left, right] of sameText) {
    it(`does not depend on key order (${name})`, () =>
      expect(canonicalJson(left)).to.equal(canonicalJson(right)));
  }

  it('gives the same text after a JSON round trip', () => {
    const value = { z: [1, undefined, { y: Number.NaN }], a: new Date(0), b: { u: undefined, k: 'v' } };
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).to.equal(canonicalJson(value));
  });

  it('distinguishes values that differ', () => {
    expect(canonicalJson({ a: 1 })).to.not.equal(canonicalJson({ a: '1' }));
  });

  const refused: Array<[string, () => unknown]> = [
    ['top-level undefined', () => undefined],
    ['bigint', () => ({ n: 1n })],
    [
      'cycle',
      () => {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      },
    ],
  ];
  for (const [name, make] of refused) {
    it(`refuses ${name}`, () => expect(() => canonicalJson(make())).to.throw(TypeError));
  }

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).to.equal('{"a":{"x":1},"b":{"x":1}}');
  });
});
