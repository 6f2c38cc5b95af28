// Where the agent's WebSocket frames go with a zero mask (no masking pass): over TLS and on
// loopback only; plain ws:// over a network keeps a random mask.
import { expect } from 'chai';
import { unmaskedLink } from '../../../agent/link/open-link.js';

describe('agent link: zero WebSocket mask', () => {
  const cases: [string, boolean][] = [
    ['wss://controller.example.net/agent/v1', true],
    ['wss://203.0.113.7:8443/agent/v1', true],
    ['ws://127.0.0.1:8080/agent/v1', true],
    ['ws://127.0.0.2:8080/agent/v1', true],
    ['ws://localhost:8080/agent/v1', true],
    ['ws://[::1]:8080/agent/v1', true],
    ['ws://controller.example.net/agent/v1', false],
    ['ws://192.168.88.10:8080/agent/v1', false],
    ['ws://[2001:db8::1]:8080/agent/v1', false],
    ['ws://127.example.net/agent/v1', false],
  ];
  for (const [url, unmasked] of cases) {
    it(`${url}: ${unmasked ? 'zero mask' : 'random mask'}`, () =>
      expect(unmaskedLink(url)).to.equal(unmasked));
  }
});
