// The journal keeps a command's secret params only until its result is stored.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { CommandJournal, type JournalEntry } from '../../../agent/state/command-journal.js';
import { REDACTED } from '../../../protocol/index.js';
import { cleanUp, tempStateDir } from './agent-harness.js';

const SECRET = '0123456789abcdef0123';

describe('command journal: secret params', () => {
  afterEach(cleanUp);

  it('writes the secret params while the command is open, and only redacted once it has a result', async () => {
    const journal = new CommandJournal(await tempStateDir());
    const id = randomUUID();
    const command = {
      id,
      name: 'router.script.apply',
      params: { name: 'ticketnet-radius', source: `/radius add secret="${SECRET}"` },
      deadline: '2026-11-21T08:01:00.000Z',
    };
    const entry: JournalEntry = {
      command,
      state: 'ACCEPTED',
      received_at: '2026-11-21T08:00:00.000Z',
      result_sent: false,
    };
    const file = join(journal.dir, `${id}.json`);
    await journal.put(entry);
    // Still owed a run (an agent restart runs it from here).
    expect(await readFile(file, 'utf8')).to.include(SECRET);
    await journal.put({ ...entry, state: 'RUNNING', started_at: '2026-11-21T08:00:01.000Z' });
    expect(await readFile(file, 'utf8')).to.include(SECRET);

    for (const status of ['DONE', 'FAILED'] as const) {
      const result =
        status === 'DONE'
          ? { id, status, output: { name: 'ticketnet-radius', duration_ms: 3 } }
          : {
              id,
              status,
              fault: { code: 'ROUTER_TRAP' as const, message: 'failure: busy', retryable: false },
            };
      const finished: JournalEntry = {
        ...entry,
        state: status,
        result,
        finished_at: '2026-11-21T08:00:02.000Z',
      };
      await journal.put(finished);
      expect(await readFile(file, 'utf8'), status).not.to.include(SECRET);
      const read = await journal.get(id);
      expect(read?.command.params).to.deep.equal({ name: 'ticketnet-radius', source: REDACTED });
      // A re-delivery is still answered from the stored result.
      expect(read?.result).to.deep.equal(result);
      // The caller's entry is left as it was.
      expect(finished.command.params.source).to.include(SECRET);
    }
  });

  it('keeps the params of a command without secrets as they are', async () => {
    const journal = new CommandJournal(await tempStateDir());
    const id = randomUUID();
    const command = {
      id,
      name: 'sales.export',
      params: { cursor: '*1A', limit: 10 },
      deadline: '2026-11-21T08:01:00.000Z',
    };
    await journal.put({
      command,
      state: 'DONE',
      received_at: '2026-11-21T08:00:00.000Z',
      result: { id, status: 'DONE', output: { entries: [], next_cursor: null, scanned: 0 } },
      result_sent: true,
    });
    expect((await journal.get(id))?.command.params).to.deep.equal({ cursor: '*1A', limit: 10 });
  });
});
