import { expect } from 'chai';
import { routerErrorFromSocketError, routerErrorFromTrap } from '../../../agent/routeros/classify-fault.js';
import type { TrapPhase } from '../../../agent/routeros/classify-fault.js';
import { RouterError } from '../../../agent/routeros/router-error.js';

describe('routerErrorFromTrap', () => {
  const cases: {
    trap: { message: string; category?: number };
    phase: TrapPhase;
    code: string;
    retryable: boolean;
  }[] = [
    {
      trap: { message: 'invalid user name or password (6)' },
      phase: 'login',
      code: 'ROUTER_AUTH_FAILED',
      retryable: false,
    },
    { trap: { message: 'cannot log in' }, phase: 'login', code: 'ROUTER_AUTH_FAILED', retryable: false },
    { trap: { message: 'not enough space' }, phase: 'command', code: 'NO_SPACE', retryable: false },
    {
      trap: { message: 'failure: not enough disk space' },
      phase: 'command',
      code: 'NO_SPACE',
      retryable: false,
    },
    {
      trap: { message: 'failed to save backup: no space left on device' },
      phase: 'command',
      code: 'NO_SPACE',
      retryable: false,
    },
    { trap: { message: 'flash full' }, phase: 'command', code: 'NO_SPACE', retryable: false },
    {
      trap: { message: 'no such item', category: 0 },
      phase: 'command',
      code: 'ROUTER_TRAP',
      retryable: false,
    },
    {
      trap: { message: 'failure: already have user with this name' },
      phase: 'command',
      code: 'ROUTER_TRAP',
      retryable: false,
    },
    { trap: { message: 'interrupted', category: 2 }, phase: 'command', code: 'ROUTER_TRAP', retryable: true },
    {
      trap: { message: 'not enough permissions (9)' },
      phase: 'command',
      code: 'ROUTER_TRAP',
      retryable: false,
    },
    { trap: { message: '' }, phase: 'command', code: 'ROUTER_TRAP', retryable: false },
  ];
  for (const c of cases) {
    it(`${c.phase}: "${c.trap.message}" → ${c.code}`, () => {
      const err = routerErrorFromTrap(c.trap, c.phase, '/x/y');
      expect(err).to.be.instanceOf(RouterError);
      expect([err.code, err.retryable]).to.deep.equal([c.code, c.retryable]);
      expect(err.category).to.equal(c.trap.category);
      if (c.trap.message) expect(err.message).to.include(c.trap.message);
    });
  }

  it('names the command in the message', () => {
    expect(
      routerErrorFromTrap({ message: 'no such item' }, 'command', '/ip/hotspot/user/remove').message,
    ).to.equal('/ip/hotspot/user/remove: no such item');
  });
});

describe('routerErrorFromSocketError', () => {
  const errnos: [string, RegExp][] = [
    ['ECONNREFUSED', /refused/],
    ['ECONNRESET', /reset/],
    ['ETIMEDOUT', /timeout/],
    ['EHOSTUNREACH', /unreachable/],
    ['ENETUNREACH', /unreachable/],
    ['ENOTFOUND', /not found/],
    ['EPIPE', /closed/],
    ['EWHATEVER', /boom/],
  ];
  for (const [code, message] of errnos) {
    it(`${code} → ROUTER_UNREACHABLE, retryable`, () => {
      const err = routerErrorFromSocketError(Object.assign(new Error('boom'), { code }), '10.0.0.1:8728');
      expect([err.code, err.retryable]).to.deep.equal(['ROUTER_UNREACHABLE', true]);
      expect(err.message).to.match(message);
      expect(err.message).to.include('10.0.0.1:8728');
    });
  }

  it('copes with a thrown non-Error', () => {
    expect(routerErrorFromSocketError('weird', 'h:1').message).to.equal('router h:1: weird');
  });
});

describe('RouterError', () => {
  it('defaults retryable from the code and can be overridden', () => {
    expect(new RouterError('ROUTER_TIMEOUT', 'x').retryable).to.equal(true);
    expect(new RouterError('ROUTER_AUTH_FAILED', 'x').retryable).to.equal(false);
    expect(new RouterError('ROUTER_TRAP', 'x', { retryable: true }).retryable).to.equal(true);
  });

  it('maps to a protocol fault', () => {
    expect(new RouterError('NO_SPACE', 'full').toFault()).to.deep.equal({
      code: 'NO_SPACE',
      message: 'full',
      retryable: false,
    });
  });
});
