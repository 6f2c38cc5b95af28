// The agent's two export handlers against the RouterOS simulator over the API wire protocol.
import { expect } from 'chai';
import { exportResellers } from '../../../agent/commands/resellers-export.js';
import { exportSales } from '../../../agent/commands/sales-export.js';
import { COMMANDS } from '../../../protocol/commands.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import type { RouterSim } from '../../routeros-sim/router-sim.js';
import { connectTo, startSim } from '../agent-routeros/support/sim.js';

describe('agent exports (resellers.export, sales.export) against the simulator', () => {
  let sim: RouterSim;
  let router: RouterConnection;

  before(async () => {
    sim = await startSim({
      serial: 'C4AD34AB12CD',
      seed: {
        resellerFleet: true,
        salesScripts: 25,
        scripts: [
          { name: 'backup-nightly', source: ':log info "a user script with a long source, not a sale"' },
          { name: 'odd-|-entry', source: 'jan/01/2026' },
        ],
      },
    });
    router = connectTo(sim);
  });
  after(async () => {
    await router.close();
    await sim.stop();
  });

  it('reads the 9 reseller accounts, parsed, and counts the other users’ tags per name as written', async () => {
    const out = await exportResellers(router);
    expect(COMMANDS['resellers.export'].output.safeParse(out).success).to.equal(true);
    expect(out.serial).to.equal('C4AD34AB12CD');
    expect(out.accounts.map((a) => a.name).sort()).to.deep.equal(
      sim.seedReport.resellers.map((r) => r.routerName).sort(),
    );
    expect(out.accounts.flatMap((a) => a.movements)).to.have.length(90);
    expect(out.accounts.every((a) => a.warnings.length === 0)).to.equal(true);
    expect(out.accounts.find((a) => a.name === 'mariama')?.disabled).to.equal(true);
    const tagNames = out.tags.map((t) => t.name);
    for (const name of ['admin', 'Gérant', 'ticketnet', 'Moussa', 'Khady']) expect(tagNames).to.include(name);
    expect(tagNames).to.not.include('mikhmon');
    expect(out.users_scanned).to.equal(sim.state.table('/ip/hotspot/user').list().length);
  });

  it('pages the sales entries in id order, raw, leaving out scripts that are not sales', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: number[] = [];
    do {
      const page = await exportSales(router, { limit: 10, ...(cursor ? { cursor } : {}) });
      expect(COMMANDS['sales.export'].output.safeParse(page).success).to.equal(true);
      pages.push(page.entries.length);
      seen.push(...page.entries.map((e) => e.script_id));
      cursor = page.next_cursor ?? undefined;
      if (cursor) expect(cursor).to.equal(page.entries[page.entries.length - 1]!.script_id);
    } while (cursor);
    // 25 sales and one odd entry holding the separator (the controller judges it); no user script.
    expect(pages).to.deep.equal([10, 10, 6]);
    expect(new Set(seen).size).to.equal(26);
    const numbers = seen.map((id) => parseInt(id.slice(1), 16));
    expect(numbers).to.deep.equal([...numbers].sort((a, b) => a - b));
    const first = await exportSales(router, { limit: 1 });
    expect(first.entries[0]).to.include({ comment: 'mikhmon' });
    expect(first.entries[0]!.owner).to.match(/^[a-z]{3}\d{4}$/);
    expect(first.entries[0]!.name.split('-|-').length).to.be.oneOf([9, 10]);
    expect(first.entries[0]!.source).to.match(/^\d{4}-\d{2}-\d{2}$/);
  });
});
