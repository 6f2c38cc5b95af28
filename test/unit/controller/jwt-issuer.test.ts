// Account tokens: a token verified once is remembered until its expiry, and only that exact string.
import { expect } from 'chai';
import { ManualClock } from '../../../controller/core/clock.js';
import { JwtIssuer } from '../../../controller/modules/accounts/jwt.js';

const DAY_MS = 86_400_000;

describe('account tokens (JwtIssuer)', () => {
  it('a remembered token still expires with its `exp`', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
    const jwt = new JwtIssuer('secret-one', 1, clock);
    const token = await jwt.sign({ accountId: 'acc-1', kind: 'client' });
    expect(await jwt.verify(token)).to.deep.equal({ accountId: 'acc-1', kind: 'client' });
    clock.advance(DAY_MS - 1000);
    expect(await jwt.verify(token)).to.deep.equal({ accountId: 'acc-1', kind: 'client' });
    clock.advance(1000);
    expect(await jwt.verify(token)).to.equal(null);
    expect(await jwt.verify(token)).to.equal(null);
  });

  it('an altered copy of a verified token, or one of another key, is refused', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
    const jwt = new JwtIssuer('secret-one', 1, clock);
    const token = await jwt.sign({ accountId: 'acc-1', kind: 'client' });
    expect(await jwt.verify(token)).to.not.equal(null);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(payload, 'base64url').toString().replace('"client"', '"admin"');
    expect(await jwt.verify(`${header}.${Buffer.from(forged).toString('base64url')}.${signature}`)).to.equal(
      null,
    );
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.slice(-1)}`;
    expect(await jwt.verify(`${header}.${payload}.${flipped}`)).to.equal(null);
    // another controller's key: what this one remembered is not its business
    expect(await new JwtIssuer('secret-two', 1, clock).verify(token)).to.equal(null);
  });
});
