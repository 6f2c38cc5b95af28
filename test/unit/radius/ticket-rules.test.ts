import { expect } from 'chai';
import type { TicketStatus } from '../../../controller/modules/tickets/tables.js';
import {
  decideAuth,
  managerTransition,
  sessionTimeout,
  type AuthTicket,
  type ManagerStatus,
} from '../../../controller/modules/tickets/ticket-rules.js';

const NOW = new Date('2026-11-21T08:00:00.000Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const ahead = (s: number) => new Date(NOW.getTime() + s * 1000).toISOString();

const ticket = (over: Partial<AuthTicket> = {}): AuthTicket => ({
  code: 'abcd2345',
  password: 'abcd2345',
  status: 'ACTIVE',
  used_at: null,
  expires_at: null,
  bytes_used: 0,
  seconds_used: 0,
  rate_limit: '2M/2M',
  data_limit_bytes: null,
  time_limit_seconds: null,
  validity_seconds: null,
  ...over,
});

describe('ticket rules', () => {
  describe('manager transitions', () => {
    const table: [TicketStatus, ManagerStatus, boolean, TicketStatus | null][] = [
      ['ACTIVE', 'DISABLED', false, 'DISABLED'],
      ['ACTIVE', 'DELETED', false, 'DELETED'],
      ['ACTIVE', 'ACTIVE', false, 'ACTIVE'],
      ['USED', 'DISABLED', true, 'DISABLED'],
      ['USED', 'DELETED', true, 'DELETED'],
      ['USED', 'ACTIVE', true, null],
      ['DISABLED', 'ACTIVE', false, 'ACTIVE'],
      ['DISABLED', 'ACTIVE', true, 'USED'],
      ['DISABLED', 'DELETED', true, 'DELETED'],
      ['DISABLED', 'DISABLED', true, 'DISABLED'],
      ['EXHAUSTED', 'DELETED', true, 'DELETED'],
      ['EXHAUSTED', 'ACTIVE', true, null],
      ['EXHAUSTED', 'DISABLED', true, null],
      ['DELETED', 'ACTIVE', false, null],
      ['DELETED', 'DISABLED', true, null],
      ['DELETED', 'DELETED', true, 'DELETED'],
    ];
    for (const [from, requested, used, expected] of table) {
      it(`${from} → ${requested}${used ? ' (used)' : ''} gives ${expected ?? 'a refusal'}`, () => {
        expect(managerTransition(from, requested, used)).to.equal(expected);
      });
    }
  });

  describe('authentication decisions', () => {
    const rejects: [string, AuthTicket | undefined, boolean, string, boolean][] = [
      ['unknown code', undefined, true, 'UNKNOWN_USER', false],
      [
        'wrong password (even on a disabled ticket)',
        ticket({ status: 'DISABLED' }),
        false,
        'BAD_PASSWORD',
        false,
      ],
      ['disabled', ticket({ status: 'DISABLED' }), true, 'DISABLED', false],
      ['deleted', ticket({ status: 'DELETED' }), true, 'DELETED', false],
      ['exhausted', ticket({ status: 'EXHAUSTED', used_at: ago(60) }), true, 'EXHAUSTED', false],
      [
        'expired validity',
        ticket({ status: 'USED', used_at: ago(7200), expires_at: ago(1), validity_seconds: 7199 }),
        true,
        'EXPIRED',
        false,
      ],
      [
        'validity derived from used_at (seen by accounting only)',
        ticket({ status: 'USED', used_at: ago(3600), validity_seconds: 3600 }),
        true,
        'EXPIRED',
        false,
      ],
      [
        'data quota spent',
        ticket({ status: 'USED', used_at: ago(60), data_limit_bytes: 1000, bytes_used: 1000 }),
        true,
        'EXHAUSTED',
        true,
      ],
      [
        'time quota spent',
        ticket({ status: 'USED', used_at: ago(60), time_limit_seconds: 3600, seconds_used: 3700 }),
        true,
        'EXHAUSTED',
        true,
      ],
    ];
    for (const [name, t, ok, reason, exhaust] of rejects) {
      it(`rejects: ${name}`, () => {
        expect(decideAuth(t, ok, NOW)).to.deep.equal({ result: 'REJECT', reason, exhaust });
      });
    }

    it('accepts a first use, fixing the expiry from now', () => {
      const d = decideAuth(ticket({ validity_seconds: 86_400, time_limit_seconds: 3600 }), true, NOW);
      expect(d).to.deep.equal({
        result: 'ACCEPT',
        firstUse: true,
        expiresAt: ahead(86_400),
        grant: { rateLimit: '2M/2M', sessionTimeout: 3600, totalLimitBytes: null },
      });
    });

    it('accepts a used ticket with what is left of its quotas', () => {
      const d = decideAuth(
        ticket({
          status: 'USED',
          used_at: ago(600),
          expires_at: ahead(1800),
          bytes_used: 6 * 2 ** 30,
          data_limit_bytes: 10 * 2 ** 30,
          seconds_used: 1000,
          time_limit_seconds: 7200,
          rate_limit: null,
        }),
        true,
        NOW,
      );
      expect(d).to.deep.equal({
        result: 'ACCEPT',
        firstUse: false,
        expiresAt: null,
        grant: { rateLimit: null, sessionTimeout: 1800, totalLimitBytes: 4 * 2 ** 30 },
      });
    });
  });

  describe('Session-Timeout', () => {
    const table: [number | null, number | null, number | null][] = [
      [null, null, null],
      [3600, null, 3600],
      [null, 120, 120],
      [3600, 120, 120],
      [60, 120, 60],
    ];
    for (const [timeLeft, untilExpiry, expected] of table) {
      it(`time left ${timeLeft}, expiry in ${untilExpiry} → ${expected}`, () => {
        const expiry = untilExpiry === null ? null : new Date(NOW.getTime() + untilExpiry * 1000);
        expect(sessionTimeout(timeLeft, expiry, NOW)).to.equal(expected);
      });
    }
  });
});
