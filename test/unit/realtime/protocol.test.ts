// The broker's framing and naming rules (Centrifugo client protocol v2, JSON).
import { expect } from 'chai';
import { methodOf, namespaceOf, parseFrame } from '../../../controller/modules/realtime/protocol.js';

describe('realtime protocol: frames, commands and channel names', () => {
  it('splits a frame on newlines and refuses one with a line that is not JSON', () => {
    expect(parseFrame('{"id":1,"connect":{}}\n{"id":2,"subscribe":{"channel":"a"}}')).to.have.length(2);
    expect(parseFrame('{}\n\n')).to.deep.equal([{}]);
    expect(parseFrame('{"id":1}\nnope')).to.equal(null);
  });

  const commands: [unknown, string | null][] = [
    [{}, null], // a pong
    [{ id: 1, connect: {} }, 'connect'],
    [{ id: 2, subscribe: { channel: 'x' } }, 'subscribe'],
    [{ send: { data: 1 } }, 'send'], // no reply, no id needed
    [{ subscribe: { channel: 'x' } }, 'bad'], // no id
    [{ id: 0, publish: {} }, 'bad'],
    [{ id: 1.5, publish: {} }, 'bad'],
    [{ id: 1 }, 'bad'],
    [{ id: 1, connect: {}, subscribe: {} }, 'bad'],
    [{ id: 1, teleport: {} }, 'bad'],
    [[], 'bad'],
    ['text', 'bad'],
  ];
  for (const [cmd, method] of commands)
    it(`reads ${JSON.stringify(cmd)} as ${method}`, () => expect(methodOf(cmd)).to.equal(method));

  const names: [unknown, string][] = [
    ['support:presence', 'support'],
    ['support:missions', 'support'],
    ['lobby', 'default'],
    ['other:x', '102'],
    [':x', '102'],
    ['support:', '102'],
    ['constructor:x', '102'],
    ['', '107'],
    ['x'.repeat(256), '107'],
    [42, '107'],
  ];
  for (const [name, expected] of names)
    it(`places ${JSON.stringify(name).slice(0, 30)} in ${expected}`, () => {
      const ns = namespaceOf(name);
      if ('code' in ns) expect(String(ns.code)).to.equal(expected);
      else expect(ns.presence ? 'support' : 'default').to.equal(expected);
    });
});
