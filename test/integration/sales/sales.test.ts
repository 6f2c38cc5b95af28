// The local sales registry: POST /api/v1/radius/sales/import through a fake agent paging
// sales.export, then the list and the summary with the registry's rules.
import { expect } from 'chai';
import { forEachDatabase } from '../../support/databases.js';
import type { CommandBody } from '../../support/fake-agent.js';
import { done, startSite, type Site } from '../takeover/takeover-fixture.js';

interface RawEntry {
  script_id: string;
  name: string;
  owner?: string;
  comment?: string;
  source?: string;
}

const line = (...fields: string[]) => fields.join('-|-');

/** A small history whose totals are known by hand. */
const HISTORY: RawEntry[] = [
  // 2025-12: one sale (5000)
  {
    script_id: '*10',
    owner: 'dec2025',
    name: line(
      'dec/01/2025',
      '09:00:00',
      'aaa111',
      '5000',
      '10.5.50.2',
      'AA:AA:AA:AA:AA:01',
      '7d',
      '7d-5000F',
      'vendu par Awa',
    ),
  },
  // 2026-01: one sale (1000F), v6 date
  {
    script_id: '*11',
    owner: 'jan2026',
    name: line(
      'jan/31/2026',
      '18:30:00',
      'bbb222',
      '1000F',
      '10.5.50.3',
      'AA:AA:AA:AA:AA:02',
      '3h',
      '3h-1000F',
      'vc-12-31.01.26',
    ),
  },
  // 2026-03: one sale (500) and a reconnection of it (never money)
  {
    script_id: '*12',
    owner: 'mar2026',
    name: line(
      '2026-03-14',
      '10:04:59',
      'ccc333',
      '500',
      '10.5.50.4',
      '',
      '1h',
      '1h-500F',
      'vendu par Moussa',
    ),
  },
  {
    script_id: '*13',
    owner: 'mar2026',
    source: '2026-03-14',
    name: line(
      '',
      '10:40:00',
      'ccc333',
      '500',
      '10.5.50.4',
      'AA:AA:AA:AA:AA:03',
      '1h',
      '1h-500F',
      'vendu par Moussa',
      '2026-03-14 11:04:59',
    ),
  },
  // a sale whose date was lost (2000): in totals, in no month
  {
    script_id: '*14',
    owner: 'mar2026',
    name: line(
      '',
      '11:00:00',
      'ddd444',
      '2000',
      '10.5.50.5',
      'AA:AA:AA:AA:AA:04',
      '1d',
      '1d-2000F',
      'vendu par moussa',
    ),
  },
  // unreadable: 8 fields
  {
    script_id: '*15',
    owner: 'mar2026',
    name: line('2026-03-15', '12:00:00', 'eee555', '500', '10.5.50.6', '', '1h', '1h-500F'),
  },
];

/** Pages `entries` as the agent does: ascending ids after the cursor, `limit` at a time. */
function pager(entries: RawEntry[]) {
  return (command: CommandBody) => {
    const params = command.params as { cursor?: string; limit?: number };
    const after = params.cursor ? parseInt(params.cursor.slice(1), 16) : -1;
    const rest = entries.filter((e) => parseInt(e.script_id.slice(1), 16) > after);
    const page = rest.slice(0, params.limit ?? 1000);
    return done({
      entries: page,
      next_cursor: rest.length > page.length ? page[page.length - 1]!.script_id : null,
      scanned: rest.length,
    });
  };
}

forEachDatabase('local sales registry', (database) => {
  let site: Site;
  beforeEach(async () => {
    site = await startSite(database);
    site.answers.set('sales.export', pager(HISTORY));
  });
  afterEach(async () => site.h.t.close());

  const api = (method: string, path: string, body?: unknown, token = site.h.client.token) =>
    site.h.t.request(method, `/api/v1/radius/sales${path}`, {
      token,
      ...(body !== undefined ? { body } : {}),
    });
  const importSales = (body: unknown = { allocation_id: site.allocationId }, token?: string) =>
    api('POST', '/import', body, token);
  const stored = async () => (await site.h.t.db.db.selectFrom('sales_records').select('id').execute()).length;

  it('imports page by page, and a re-import stores nothing twice', async () => {
    const first = await importSales({ allocation_id: site.allocationId, page_size: 2 });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body).to.include({ success: true, registry: 'LOCAL_SALES_HISTORY', pages: 3 });
    expect(first.body.imported).to.deep.equal({
      entries_read: 6,
      records_created: 5,
      records_existing: 0,
      unreadable: 1,
    });
    expect(first.body.unreadable_samples).to.deep.equal([
      { script_id: '*15', reason: '8 fields; a record has 9, or 10 for a reconnection' },
    ]);
    const pages = site.agent.deliveries.filter((d) => d.name === 'sales.export').map((d) => d.params);
    expect(pages).to.deep.equal([{ limit: 2 }, { limit: 2, cursor: '*11' }, { limit: 2, cursor: '*13' }]);

    const again = await importSales();
    expect(again.body.imported).to.deep.equal({
      entries_read: 6,
      records_created: 0,
      records_existing: 5,
      unreadable: 1,
    });
    expect(await stored()).to.equal(5);

    // A router that gained history since: only the new entry is stored.
    site.answers.set(
      'sales.export',
      pager([
        ...HISTORY,
        {
          script_id: '*20',
          owner: 'mar2026',
          name: line('2026-03-20', '08:00:00', 'fff666', '500', '', '', '1h', '1h-500F', ''),
        },
      ]),
    );
    expect((await importSales()).body.imported).to.include({ records_created: 1, records_existing: 5 });
  });

  it('sums only VENTE as money; undated sales in totals, never in a month', async () => {
    await importSales();
    const res = await api('GET', '/summary');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      success: true,
      registry: 'LOCAL_SALES_HISTORY',
      allocation_id: null,
      year: null,
      totals: {
        ventes_count: 4,
        ventes_xof: 8500,
        connexions_count: 1,
        undated_ventes_count: 1,
        undated_ventes_xof: 2000,
        unpriced_ventes_count: 0,
      },
      monthly: [
        { month: '2025-12', ventes_count: 1, ventes_xof: 5000, connexions_count: 0 },
        { month: '2026-01', ventes_count: 1, ventes_xof: 1000, connexions_count: 0 },
        { month: '2026-03', ventes_count: 1, ventes_xof: 500, connexions_count: 1 },
      ],
    });
    const monthlyXof = res.body.monthly.reduce((s: number, m: { ventes_xof: number }) => s + m.ventes_xof, 0);
    expect(monthlyXof + res.body.totals.undated_ventes_xof).to.equal(res.body.totals.ventes_xof);

    const year = await api('GET', `/summary?year=2026&allocation_id=${site.allocationId}`);
    expect(year.body).to.include({ year: 2026, allocation_id: site.allocationId });
    expect(year.body.monthly.map((m: { month: string }) => m.month)).to.deep.equal(['2026-01', '2026-03']);
    expect(year.body.totals.ventes_xof).to.equal(8500);
  });

  it('lists the records with the registry fields, filtered and paginated', async () => {
    await importSales();
    const all = await api('GET', '');
    expect(all.status).to.equal(200);
    expect(all.body).to.include({ registry: 'LOCAL_SALES_HISTORY', limit: 100, offset: 0 });
    expect(
      all.body.sales.map((s: { voucher_code: string; type: string }) => [s.voucher_code, s.type]),
    ).to.deep.equal([
      ['ccc333', 'VENTE'],
      ['bbb222', 'VENTE'],
      ['aaa111', 'VENTE'],
      // undated last
      ['ddd444', 'VENTE'],
      ['ccc333', 'CONNEXION'],
    ]);
    expect(all.body.sales[0]).to.deep.equal({
      type: 'VENTE',
      sold_at: '2026-03-14T10:04:59.000Z',
      voucher_code: 'ccc333',
      price_xof: 500,
      client_ip: '10.5.50.4',
      client_mac: null,
      duration_label: '1h',
      profile_name: '1h-500F',
      comment: 'vendu par Moussa',
      reseller_name: 'moussa',
      expires_at: null,
      month: '2026-03',
      allocation_id: site.allocationId,
    });
    const codes = async (query: string) =>
      (await api('GET', query)).body.sales.map((s: { voucher_code: string }) => s.voucher_code);
    expect(await codes('?type=CONNEXION')).to.deep.equal(['ccc333']);
    expect(await codes('?reseller=Moussa')).to.deep.equal(['ccc333', 'ddd444', 'ccc333']);
    expect(await codes('?from=2026-01-01&to=2026-03-14')).to.deep.equal(['ccc333', 'bbb222']);
    expect(await codes('?from=2026-01-31T18:30:00Z&to=2026-03-14T10:04:58Z')).to.deep.equal(['bbb222']);
    expect(await codes('?limit=2&offset=1')).to.deep.equal(['bbb222', 'aaa111']);
    expect(await codes(`?allocation_id=${site.allocationId}&type=VENTE&limit=1`)).to.deep.equal(['ccc333']);
  });

  describe('refusals', () => {
    const badQueries: [string, string, string][] = [
      ['a limit over 1000', '?limit=1001', 'limit'],
      ['a zero limit', '?limit=0', 'limit'],
      ['a negative offset', '?offset=-1', 'offset'],
      ['an unknown type', '?type=SALE', 'type'],
      ['a date that is not one', '?from=14/03/2026', 'from'],
      ['to before from', '?from=2026-03-02&to=2026-03-01', 'to'],
      ['an allocation_id that is not a UUID', '?allocation_id=x', 'allocation_id'],
    ];
    for (const [what, query, field] of badQueries) {
      it(`refuses ${what} in the list with 400 naming ${field}`, async () => {
        const res = await api('GET', query);
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('VALIDATION_ERROR');
        expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
      });
    }

    for (const [what, query, field] of [
      ['a year that is not a number', '?year=twenty', 'year'],
      ['a year out of range', '?year=1999', 'year'],
    ]) {
      it(`refuses ${what} in the summary`, async () => {
        const res = await api('GET', `/summary${query}`);
        expect(res.status).to.equal(400);
        expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
      });
    }

    const badBodies: [string, unknown, string][] = [
      ['no allocation_id', {}, 'allocation_id'],
      ['an allocation_id that is not a UUID', { allocation_id: 'x' }, 'allocation_id'],
      [
        'a page size of zero',
        { allocation_id: '3f1e4c55-1111-4a2b-9c3d-1234567890ab', page_size: 0 },
        'page_size',
      ],
      [
        'a page size over 5000',
        { allocation_id: '3f1e4c55-1111-4a2b-9c3d-1234567890ab', page_size: 5001 },
        'page_size',
      ],
    ];
    for (const [what, body, field] of badBodies) {
      it(`refuses an import with ${what}, storing nothing`, async () => {
        const res = await importSales(body);
        expect(res.status).to.equal(400);
        expect(res.body.details.map((d: { field: string }) => d.field)).to.include(field);
        expect(await stored()).to.equal(0);
      });
    }

    it('answers 404 for another tenant’s allocation on every route', async () => {
      await importSales();
      const other = await site.licensedClient();
      const id = site.allocationId;
      for (const [method, path, body] of [
        ['POST', '/import', { allocation_id: id }],
        ['GET', `?allocation_id=${id}`, undefined],
        ['GET', `/summary?allocation_id=${id}`, undefined],
      ] as const) {
        const res = await api(method, path, body, other.token);
        expect(res.status, `${method} ${path}`).to.equal(404);
        expect(res.body.code).to.equal('ALLOCATION_NOT_FOUND');
      }
      // Another tenant sees an empty registry, not ours.
      expect((await api('GET', '', undefined, other.token)).body.sales).to.deep.equal([]);
      expect((await api('GET', '/summary', undefined, other.token)).body.totals.ventes_count).to.equal(0);
    });

    it('needs a client with an active RADIUS licence', async () => {
      expect((await site.h.t.request('GET', '/api/v1/radius/sales')).status).to.equal(401);
      const unlicensed = await site.h.t.account('client');
      const res = await api('GET', '/summary', undefined, unlicensed.token);
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('RADIUS_LICENSE_INACTIVE');
    });

    it('stops with 502 when the router history does not advance, keeping the pages stored', async () => {
      site.answers.set('sales.export', (command) => {
        const params = command.params as { cursor?: string };
        return done({ entries: params.cursor ? [] : HISTORY.slice(0, 2), next_cursor: '*11', scanned: 2 });
      });
      const res = await importSales();
      expect(res.status).to.equal(502);
      expect(res.body.code).to.equal('ROUTER_COMMAND_FAILED');
      expect(await stored()).to.equal(2);
    });

    it('answers 502 with the fault when the router cannot be read, storing nothing', async () => {
      site.answers.set('sales.export', () => ({
        status: 'FAILED',
        fault: { code: 'ROUTER_TIMEOUT', message: 'router silent', retryable: true },
      }));
      const res = await importSales();
      expect(res.status).to.equal(502);
      expect(res.body.details.fault.code).to.equal('ROUTER_TIMEOUT');
      expect(await stored()).to.equal(0);
    });
  });
});
