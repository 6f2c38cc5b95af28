// The link statements read `agent_links` by primary key on a fresh SQLite database (no statistics
// for it): walking the link_instance index instead would read every link this instance holds, on
// each heartbeat slice, sweep and command send (10k rows at 10k agents).
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import type { CompiledQuery } from 'kysely';
import { pino } from 'pino';
import { openDatabase, type DatabaseHandle, type Db } from '../../../controller/db/database.js';
import { migrateDatabase } from '../../../controller/modules/build-modules.js';
import * as links from '../../../controller/hub/link-queries.js';
import * as commands from '../../../controller/hub/command-queries.js';
import { CommandStatements } from '../../../controller/hub/command-statements.js';
import { KyselySessions } from '../../../controller/db/statement-sessions.js';

const IDS = Array.from({ length: 16 }, (_, i) => `a${i}`);
const NOW = '2026-11-21T10:00:00.000Z';
const BY_KEY =
  /^SEARCH agent_links (EXISTS )?USING INDEX sqlite_autoindex_agent_links_1 \(allocation_id=\?\)$/;

describe('agent link statements, before any ANALYZE [sqlite]', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let db: Db;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tn-link-planner-'));
    handle = await openDatabase(`sqlite:${join(dir, 'p.db')}`);
    db = handle.db;
    await migrateDatabase(handle);
  });
  after(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The plan lines of every statement `run` sends. */
  async function plansOf(run: () => Promise<unknown>): Promise<string[]> {
    const spy = sinon.spy(db.getExecutor(), 'executeQuery');
    let sent: CompiledQuery[];
    try {
      await run();
      sent = spy.getCalls().map((c) => c.args[0] as CompiledQuery);
    } finally {
      spy.restore();
    }
    const plans: string[] = [];
    for (const q of sent) {
      const { rows } = await db.executeQuery<{ detail: string }>({
        ...q,
        sql: `explain query plan ${q.sql}`,
      });
      plans.push(...rows.map((r) => r.detail));
    }
    return plans;
  }

  function expectByKey(plans: string[]): void {
    const reads = plans.filter((p) => /\bagent_links\b/.test(p));
    expect(reads, plans.join('\n')).to.not.be.empty;
    for (const p of reads) expect(p, plans.join('\n')).to.match(BY_KEY);
  }

  const statements: { name: string; run: () => Promise<unknown> }[] = [
    { name: 'heartbeat refresh', run: () => links.touchLinks(db, 'i1', IDS, NOW) },
    { name: 'ownership check', run: () => links.linkOwners(db, 'i1', IDS) },
    { name: 'release', run: () => links.markDisconnected(db, [{ allocationId: 'a1', session: 's1' }], NOW) },
    { name: 'views', run: () => links.linksOf(db, IDS) },
    { name: 'sweep of QUEUED commands', run: () => commands.queuedForInstance(db, 'i1', NOW, 1000) },
    {
      name: 'send of an open command',
      run: () =>
        new CommandStatements(db, new KyselySessions(db), pino({ level: 'silent' }), false).claimOpen(
          'c1',
          's1',
          NOW,
        ),
    },
    {
      name: 'send of a command just queued',
      run: () =>
        new CommandStatements(db, new KyselySessions(db), pino({ level: 'silent' }), false).claimQueued(
          'c1',
          's1',
          NOW,
        ),
    },
    {
      name: 'store and send of a new command',
      // The allocation does not exist: the statement fails on its foreign key once planned and run.
      run: () =>
        new CommandStatements(db, new KyselySessions(db), pino({ level: 'silent' }), false)
          .insert(
            {
              id: 'c2',
              allocation_id: 'a1',
              client_id: 'x',
              name: 'router.ping',
              params: '{}',
              state: 'QUEUED',
              deadline: NOW,
              created_at: NOW,
              sent_at: null,
              acked_at: null,
              finished_at: null,
              attempts: 0,
              output: null,
              fault_code: null,
              fault_message: null,
              fault_retryable: null,
            },
            's1',
            NOW,
          )
          .catch(() => undefined),
    },
  ];
  for (const s of statements)
    it(`${s.name}: reads agent_links by primary key`, async () => expectByKey(await plansOf(s.run)));
});
