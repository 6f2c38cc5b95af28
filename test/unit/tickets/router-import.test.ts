// The pure rules of the router-user import and the inventory pages, as tables.
import { expect } from 'chai';
import { AppError } from '../../../controller/core/app-error.js';
import {
  compareWithStored,
  importedTicket,
  inventoryWindow,
  readRouterUsers,
  type ImportedUser,
  type RouterUserImport,
} from '../../../controller/modules/tickets/router-import.js';
import type { TicketStatus } from '../../../controller/modules/tickets/tables.js';
import {
  decideAuth,
  effectiveLimit,
  importedStatus,
  quotaReached,
} from '../../../controller/modules/tickets/ticket-rules.js';

const NOW = new Date('2026-11-21T08:00:00.000Z');
const user = (over: Partial<RouterUserImport> = {}): RouterUserImport => ({
  name: 'u1',
  password: 'p1',
  profile: '1H',
  disabled: false,
  ...over,
});

describe('router import rules', () => {
  describe('effective limit: the ticket’s own, else the profile’s', () => {
    const table: [number | null, number | null, number | null][] = [
      [null, null, null],
      [null, 3600, 3600],
      [600, 3600, 600],
      [7200, 3600, 7200],
      [600, null, 600],
    ];
    for (const [own, profile, expected] of table) {
      it(`own ${own}, profile ${profile} → ${expected}`, () => {
        expect(effectiveLimit(own, profile)).to.equal(expected);
      });
    }
  });

  describe('status of an imported user', () => {
    // disabled, bytes, seconds, data limit, time limit → status
    const table: [boolean, number, number, number | null, number | null, TicketStatus][] = [
      [false, 0, 0, null, null, 'ACTIVE'],
      [false, 0, 0, 1000, 60, 'ACTIVE'],
      [true, 0, 0, null, null, 'DISABLED'],
      [true, 5000, 600, 1000, 60, 'DISABLED'],
      [false, 1, 0, null, null, 'USED'],
      [false, 0, 1, null, null, 'USED'],
      [false, 999, 59, 1000, 60, 'USED'],
      [false, 1000, 0, 1000, null, 'EXHAUSTED'],
      [false, 0, 60, null, 60, 'EXHAUSTED'],
      [false, 1, 61, 1000, 60, 'EXHAUSTED'],
    ];
    for (const [disabled, bytes, seconds, data, time, expected] of table) {
      it(`${disabled ? 'disabled, ' : ''}${bytes} B / ${seconds} s of ${data} B / ${time} s → ${expected}`, () => {
        expect(
          importedStatus(
            { disabled, bytes_used: bytes, seconds_used: seconds },
            { data_limit_bytes: data, time_limit_seconds: time },
          ),
        ).to.equal(expected);
      });
    }
  });

  it('quotaReached is the rule authentication rejects on', () => {
    const base = {
      code: 'c',
      password: 'c',
      status: 'USED' as const,
      used_at: NOW.toISOString(),
      expires_at: null,
      rate_limit: null,
      validity_seconds: null,
    };
    for (const [bytes, seconds, data, time] of [
      [100, 0, 100, null],
      [0, 10, null, 10],
      [99, 9, 100, 10],
      [0, 0, null, null],
    ] as const) {
      const t = {
        ...base,
        bytes_used: bytes,
        seconds_used: seconds,
        data_limit_bytes: data,
        time_limit_seconds: time,
      };
      const d = decideAuth(t, true, NOW);
      expect(quotaReached(t), JSON.stringify(t)).to.equal(d.result === 'REJECT' && d.reason === 'EXHAUSTED');
    }
  });

  describe('reading router users', () => {
    it('maps the fields: password absent → "", own limits, usage, reseller from the comment', () => {
      const [u] = readRouterUsers([
        {
          name: 'AbC-12',
          profile: '1 Jour',
          comment: 'vendu par Awa Diop | 2026-11-02',
          limit_uptime: 3600,
          limit_bytes_total: 500 * 2 ** 20,
          disabled: false,
          uptime_seconds: 125.9,
          bytes_in: 1000,
          bytes_out: 24,
        },
      ]);
      expect(u).to.deep.equal({
        code: 'AbC-12',
        password: '',
        profileName: '1 Jour',
        comment: 'vendu par Awa Diop | 2026-11-02',
        resellerName: 'awadiop',
        dataLimitBytes: 500 * 2 ** 20,
        timeLimitSeconds: 3600,
        disabled: false,
        bytesUsed: 1024,
        secondsUsed: 125,
      } satisfies ImportedUser);
    });

    const cases: [string, Partial<RouterUserImport>, Partial<ImportedUser>][] = [
      ['no comment, no tag', {}, { comment: null, resellerName: null }],
      ['comment without a tag', { comment: 'carte 500F' }, { comment: 'carte 500F', resellerName: null }],
      ['tag in any case', { comment: 'VENDU PAR Moussa' }, { resellerName: 'moussa' }],
      [
        'limits of 0 mean none (RouterOS)',
        { limit_uptime: 0, limit_bytes_total: 0 },
        { timeLimitSeconds: null, dataLimitBytes: null },
      ],
      ['no usage', {}, { bytesUsed: 0, secondsUsed: 0 }],
      ['empty password kept', { password: '' }, { password: '' }],
      ['case kept in the name', { name: 'ABCdef' }, { code: 'ABCdef' }],
    ];
    for (const [name, over, expected] of cases) {
      it(name, () => {
        expect(readRouterUsers([user(over)])[0]).to.include(expected);
      });
    }

    it('skips default-trial only', () => {
      const read = readRouterUsers([user({ name: 'default-trial' }), user({ name: 'default-trial2' })]);
      expect(read.map((u) => u.code)).to.deep.equal(['default-trial2']);
    });

    const invalid: [string, unknown, string][] = [
      ['not a list', { not: 'a list' }, 'users'],
      ['empty name', [user({ name: '' })], 'users[0].name'],
      ['no profile', [{ name: 'x', disabled: false }], 'users[0].profile'],
      ['negative usage', [user(), user({ bytes_in: -1 })], 'users[1].bytes_in'],
      ['disabled missing', [{ name: 'x', profile: 'p' }], 'users[0].disabled'],
      ['password not text', [user({ password: 12 as unknown as string })], 'users[0].password'],
    ];
    for (const [name, input, field] of invalid) {
      it(`refuses the whole import: ${name}`, () => {
        let err: unknown;
        try {
          readRouterUsers(input);
        } catch (e) {
          err = e;
        }
        expect(err).to.be.instanceOf(AppError);
        expect((err as AppError).code).to.equal('VALIDATION_ERROR');
        expect(((err as AppError).details as { field: string }[]).map((d) => d.field)).to.include(field);
      });
    }
  });

  describe('the ticket a router user becomes', () => {
    const profile = { id: 'p-1', data_limit_bytes: null, time_limit_seconds: 3600, validity_seconds: 86_400 };
    const read = (over: Partial<RouterUserImport>) => readRouterUsers([user(over)])[0]!;
    const table: [string, Partial<RouterUserImport>, Record<string, unknown>][] = [
      ['never used', {}, { status: 'ACTIVE', used_at: null, expires_at: null, bytes_used: 0 }],
      [
        'used: USED from the import, validity from then',
        { uptime_seconds: 600, bytes_in: 10, bytes_out: 20 },
        {
          status: 'USED',
          used_at: NOW.toISOString(),
          expires_at: '2026-11-22T08:00:00.000Z',
          seconds_used: 600,
          bytes_used: 30,
        },
      ],
      [
        'used up against the profile’s time limit',
        { uptime_seconds: 3600 },
        { status: 'EXHAUSTED', used_at: NOW.toISOString(), time_limit_seconds: null },
      ],
      [
        'used up against its own lower limit',
        { uptime_seconds: 600, limit_uptime: 600 },
        { status: 'EXHAUSTED', time_limit_seconds: 600 },
      ],
      [
        'its own higher limit replaces the profile’s',
        { uptime_seconds: 3600, limit_uptime: 7200 },
        { status: 'USED', time_limit_seconds: 7200 },
      ],
      [
        'disabled but used: DISABLED, used_at kept for a re-enable',
        { disabled: true, bytes_in: 1 },
        { status: 'DISABLED', used_at: NOW.toISOString() },
      ],
    ];
    for (const [name, over, expected] of table) {
      it(name, () => {
        const row = importedTicket(read(over), profile, 'client-1', NOW, 'id-1');
        expect(row).to.include({
          id: 'id-1',
          client_id: 'client-1',
          profile_id: 'p-1',
          created_at: NOW.toISOString(),
        });
        expect(row).to.include(expected);
      });
    }

    it('no validity on the profile: no expiry', () => {
      const row = importedTicket(
        read({ bytes_in: 5 }),
        { ...profile, validity_seconds: null },
        'c',
        NOW,
        'i',
      );
      expect(row.expires_at).to.equal(null);
    });
  });

  describe('comparison with a stored ticket', () => {
    const stored = (status: TicketStatus, password = 'pw', profile_id = 'p1') => ({
      status,
      password,
      profile_id,
    });
    const wanted = { password: 'pw', profile_id: 'p1' };
    const table: [ReturnType<typeof stored>, typeof wanted, string][] = [
      [stored('ACTIVE'), wanted, 'EXISTING'],
      [stored('USED'), wanted, 'EXISTING'],
      [stored('EXHAUSTED'), wanted, 'EXISTING'],
      [stored('DISABLED'), wanted, 'EXISTING'],
      [stored('ACTIVE', 'PW'), wanted, 'PASSWORD_DIFFERS'],
      [stored('ACTIVE', 'pw', 'p2'), wanted, 'PROFILE_DIFFERS'],
      [stored('ACTIVE', 'x', 'p2'), wanted, 'PASSWORD_DIFFERS'],
      [stored('DELETED'), wanted, 'DELETED'],
      [stored('DELETED', 'x', 'p2'), wanted, 'DELETED'],
    ];
    for (const [s, w, expected] of table) {
      it(`${s.status} ${s.password}/${s.profile_id} vs ${w.password}/${w.profile_id} → ${expected}`, () => {
        expect(compareWithStored(s, w)).to.equal(expected);
      });
    }
  });

  describe('inventory pages', () => {
    const codes = ['b', 'a', 'C', 'B', 'c', 'A', 'a', 'é', 'z'];
    const table: [string | null, number, string[], boolean][] = [
      [null, 3, ['A', 'B', 'C'], true],
      ['C', 3, ['a', 'b', 'c'], true],
      ['c', 3, ['z', 'é'], false],
      ['é', 3, [], false],
      [null, 100, ['A', 'B', 'C', 'a', 'b', 'c', 'z', 'é'], false],
      // A cursor that is not one of the codes starts after where it would sort.
      ['Bz', 2, ['C', 'a'], true],
      [null, 8, ['A', 'B', 'C', 'a', 'b', 'c', 'z', 'é'], false],
    ];
    for (const [cursor, limit, page, more] of table) {
      it(`after ${cursor ?? 'the start'}, ${limit} → ${page.join(',') || 'nothing'}${more ? ', more' : ''}`, () => {
        expect(inventoryWindow(codes, cursor, limit)).to.deep.equal({ page, more });
        // the same codes given already in order and distinct (a caller paging through one list)
        const inOrder = ['A', 'B', 'C', 'a', 'b', 'c', 'z', 'é'];
        expect(inventoryWindow(inOrder, cursor, limit)).to.deep.equal({ page, more });
      });
    }

    it('sorts codes that are in order but repeated, or in order but for one', () => {
      expect(inventoryWindow(['a', 'a', 'b'], null, 10)).to.deep.equal({ page: ['a', 'b'], more: false });
      expect(inventoryWindow(['a', 'c', 'b'], null, 10)).to.deep.equal({
        page: ['a', 'b', 'c'],
        more: false,
      });
    });

    it('orders as JavaScript compares strings, whatever the input order', () => {
      const many = Array.from({ length: 300 }, (_, i) => `k${(i * 7919) % 300}`);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const { page, more }: { page: string[]; more: boolean } = inventoryWindow(many, cursor, 64);
        seen.push(...page);
        if (!more) break;
        cursor = page[page.length - 1]!;
      }
      expect(seen).to.have.length(300);
      for (let i = 1; i < seen.length; i++) expect(seen[i - 1]! < seen[i]!).to.equal(true);
    });
  });
});
