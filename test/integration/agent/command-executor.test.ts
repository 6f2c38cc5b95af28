import { COMMANDS } from '../../../protocol/index.js';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CommandCatalogue, CommandHandler } from '../../../agent/commands/command-catalogue.js';
import { CommandExecutor } from '../../../agent/commands/command-executor.js';
import type { CommandTransport } from '../../../agent/commands/command-executor.js';
import { SILENT_LOGGER } from '../../../agent/logger.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import { RouterError } from '../../../agent/routeros/router-error.js';
import { CommandJournal } from '../../../agent/state/command-journal.js';
import type { CommandBody, JournalEntry, ResultBody } from '../../../agent/state/command-journal.js';
import { cleanUp, tempStateDir, waitUntil } from './agent-harness.js';

const FACTS = {
  serial: 'ABC',
  identity: 'r1',
  model: 'RB',
  routeros_version: '7.19',
  architecture: 'arm64',
  board_name: 'hAP',
  free_hdd_bytes: 1,
  total_hdd_bytes: 2,
  uptime_seconds: 3,
};

class RecordingTransport {
  online = true;
  readonly sent: { type: string; body: { id: string } }[] = [];
  onSend: ((type: string, body: { id: string }) => Promise<void>) | undefined;

  readonly send = (async (type: 'ack' | 'result', body: { id: string }) => {
    await this.onSend?.(type, body);
    if (!this.online) return false;
    this.sent.push({ type, body });
    return true;
  }) as CommandTransport['send'];

  results(): ResultBody[] {
    return this.sent.filter((s) => s.type === 'result').map((s) => s.body as ResultBody);
  }
}

function catalogueWith(facts: CommandHandler<'router.facts'>): CommandCatalogue {
  // Every other catalogue command fails: these tests only run router.facts.
  const never = () => Promise.reject(new Error('not in this test'));
  const others = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, never]));
  return { ...others, 'router.facts': facts } as CommandCatalogue;
}

function command(name = 'router.facts', deadlineInMs = 60_000): CommandBody {
  return { id: randomUUID(), name, params: {}, deadline: new Date(Date.now() + deadlineInMs).toISOString() };
}

describe('command executor (journal rules)', () => {
  let journal: CommandJournal;
  let transport: RecordingTransport;

  beforeEach(async () => {
    journal = new CommandJournal(join(await tempStateDir()));
    transport = new RecordingTransport();
  });
  afterEach(cleanUp);

  function executor(
    facts: CommandHandler<'router.facts'> = async () => FACTS,
    overrides = {},
  ): CommandExecutor {
    return new CommandExecutor({
      journal,
      router: {} as RouterConnection,
      catalogue: catalogueWith(facts),
      transport,
      logger: SILENT_LOGGER,
      ...overrides,
    });
  }

  it('journals the command to disk before it acks', async () => {
    const cmd = command();
    let journalledBeforeAck = false;
    transport.onSend = async (type) => {
      if (type === 'ack')
        journalledBeforeAck = await access(join(journal.dir, `${cmd.id}.json`)).then(() => true);
    };
    const ex = executor();
    await ex.receive(cmd);
    await ex.idle();
    expect(journalledBeforeAck).to.equal(true);
    expect(transport.sent.map((s) => s.type)).to.deep.equal(['ack', 'result']);
    expect(transport.results()[0]).to.deep.equal({ id: cmd.id, status: 'DONE', output: FACTS });
  });

  it('maps a RouterError to a fault with the same code and retryable flag', async () => {
    const ex = executor(async () => {
      throw new RouterError('ROUTER_TRAP', 'interrupted', { retryable: true });
    });
    await ex.receive(command());
    await ex.idle();
    expect(transport.results()[0]?.fault).to.deep.equal({
      code: 'ROUTER_TRAP',
      message: 'interrupted',
      retryable: true,
    });
  });

  it('turns any other error, and output outside the catalogue, into AGENT_ERROR', async () => {
    const crashing = executor(async () => {
      throw new TypeError('boom');
    });
    await crashing.receive(command());
    await crashing.idle();
    expect(transport.results()[0]?.fault).to.include({ code: 'AGENT_ERROR', retryable: false });

    const sloppy = executor(async () => ({ serial: 42 }));
    await sloppy.receive(command());
    await sloppy.idle();
    expect(transport.results()[1]?.fault?.code).to.equal('AGENT_ERROR');
  });

  it('answers DEADLINE_PASSED when the deadline comes while the command runs', async () => {
    const ex = executor(() => new Promise(() => undefined));
    await ex.receive(command('router.facts', 150));
    await ex.idle();
    expect(transport.results()[0]?.fault).to.include({ code: 'DEADLINE_PASSED', retryable: false });
  });

  it('counts the time to live from receipt, whatever the deadline says on this clock', async () => {
    const DAY = 86_400_000;
    const ex = executor();
    // A controller a day behind: its deadline has long passed here, its time to live has not.
    const behind = { ...command(), deadline: new Date(Date.now() - DAY).toISOString(), ttl_ms: 60_000 };
    await ex.receive(behind);
    await ex.idle();
    expect(transport.results()[0]).to.include({ id: behind.id, status: 'DONE' });
    // A controller a day ahead: its deadline is far off here, its 150 ms are not.
    const slow = executor(() => new Promise(() => undefined));
    const ahead = { ...command(), deadline: new Date(Date.now() + DAY).toISOString(), ttl_ms: 150 };
    const started = performance.now();
    await slow.receive(ahead);
    await slow.idle();
    expect(transport.results()[1]?.fault).to.include({ code: 'DEADLINE_PASSED' });
    expect(performance.now() - started).to.be.below(2_000);
    // The journal keeps the agent's own deadline: receipt plus time to live on this clock.
    const entry = await journal.get(behind.id);
    expect(Date.parse(entry!.expires_at!) - Date.parse(entry!.received_at)).to.equal(60_000);
  });

  it('does not ack a command it could not journal', async () => {
    class FullDisk extends CommandJournal {
      override async put(): Promise<void> {
        throw new Error('ENOSPC: no space left on device');
      }
    }
    const cmd = command();
    const ex = executor(undefined, { journal: new FullDisk(journal.dir) });
    await ex.receive(cmd);
    await ex.idle();
    expect(transport.sent).to.have.length(0);
    // Not journalled, so a re-delivery on the next connection is a new command.
    expect(await journal.get(cmd.id)).to.equal(undefined);
  });

  it('keeps a result made while the link was down and sends it on the next connection', async () => {
    const ex = executor();
    const cmd = command();
    await ex.receive(cmd);
    transport.online = false;
    await ex.idle();
    expect((await journal.get(cmd.id))?.result_sent).to.equal(false);

    transport.online = true;
    await ex.resendUnsent();
    expect(transport.results().map((r) => r.id)).to.deep.equal([cmd.id]);
    expect((await journal.get(cmd.id))?.result_sent).to.equal(true);
  });

  it('after a restart: runs what was waiting, fails what was running (retryable), never runs it twice', async () => {
    const waiting = command();
    const running = command();
    const base = { received_at: new Date().toISOString(), result_sent: false };
    await journal.put({ ...base, command: waiting, state: 'ACCEPTED' } satisfies JournalEntry);
    await journal.put({ ...base, command: running, state: 'RUNNING', started_at: base.received_at });

    let runs = 0;
    const ex = executor(async () => {
      runs++;
      return FACTS;
    });
    await ex.recover();
    await ex.idle();
    await ex.resendUnsent();
    expect(runs).to.equal(1);
    const results = new Map(transport.results().map((r) => [r.id, r]));
    expect(results.get(waiting.id)?.status).to.equal('DONE');
    expect(results.get(running.id)?.fault).to.include({ code: 'AGENT_ERROR', retryable: true });

    // Re-delivery of either answers from the journal.
    await ex.receive(running);
    await ex.idle();
    expect(runs).to.equal(1);
    expect(transport.results().filter((r) => r.id === running.id).length).to.be.at.least(2);
  });

  it('after a restart: what was waiting runs, and unsent results go out, in arrival order', async () => {
    // Written in an order that is neither arrival order nor (by chance) the directory's.
    const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
    const waiting = [command(), command(), command()];
    const unsent = [command(), command()];
    for (const [i, cmd] of [2, 0, 1].map((i) => [i, waiting[i]!] as const))
      await journal.put({ command: cmd, state: 'ACCEPTED', received_at: at(10 + i), result_sent: false });
    for (const [i, cmd] of [1, 0].map((i) => [i, unsent[i]!] as const))
      await journal.put({
        command: cmd,
        state: 'DONE',
        received_at: at(i),
        result: { id: cmd.id, status: 'DONE', output: FACTS },
        result_sent: false,
      });

    transport.online = false;
    const ran: string[] = [];
    const ex = executor(async ({ command: cmd }) => {
      ran.push(cmd.id);
      return FACTS;
    });
    await ex.recover();
    await ex.idle();
    expect(ran).to.deep.equal(waiting.map((c) => c.id));
    transport.online = true;
    await ex.resendUnsent();
    expect(transport.results().map((r) => r.id)).to.deep.equal([...unsent, ...waiting].map((c) => c.id));
  });

  it('recovers and prunes a journal far larger than the packaged heap limit (one entry at a time)', async function () {
    this.timeout(60_000);
    // 80 finished commands of 600 KiB output each: 48 MiB of journal for a 24 MiB old space.
    const big = 'x'.repeat(600 * 1024);
    for (let i = 0; i < 80; i++) {
      const cmd = command('router.facts', 3_600_000);
      await journal.put({
        command: cmd,
        state: 'DONE',
        received_at: new Date().toISOString(),
        result: { id: cmd.id, status: 'DONE', output: { big } },
        result_sent: true,
      });
    }
    const module = (path: string) => JSON.stringify(new URL(`../../../${path}`, import.meta.url).href);
    const script = `
      const { CommandJournal } = await import(${module('agent/state/command-journal.ts')});
      const { CommandExecutor } = await import(${module('agent/commands/command-executor.ts')});
      const journal = new CommandJournal(${JSON.stringify(journal.dir)});
      await journal.prune(new Date());
      const ex = new CommandExecutor({ journal, router: {}, catalogue: {}, transport: { send: async () => true },
        logger: { debug() {}, info() {}, warn() {}, error() {} } });
      await ex.recover();
      console.log('recovered');`;
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=24', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 50_000 },
    );
    expect(child.stdout + child.stderr).to.match(/recovered/);
    expect(child.status).to.equal(0);
  });

  it('records a command interrupted by stop() as FAILED AGENT_ERROR (retryable)', async () => {
    const ex = executor(() => new Promise(() => undefined));
    const cmd = command();
    await ex.receive(cmd);
    await waitUntil(async () => (await journal.get(cmd.id))?.state === 'RUNNING');
    await ex.stop();
    const entry = await journal.get(cmd.id);
    expect(entry?.state).to.equal('FAILED');
    expect(entry?.result?.fault).to.include({ code: 'AGENT_ERROR', retryable: true });
  });

  it('stop() never hangs, whenever it comes; the command is left to run again or FAILED retryable', async () => {
    for (let delay = 0; delay < 12; delay++) {
      transport = new RecordingTransport();
      const ex = executor(() => new Promise(() => undefined));
      const cmd = command();
      void ex.receive(cmd);
      await new Promise((resolve) => setTimeout(resolve, delay));
      const stopped = await Promise.race([
        ex.stop().then(() => true),
        new Promise((resolve) => setTimeout(() => resolve(false), 2000)),
      ]);
      expect(stopped, `stop after ${delay} ms`).to.equal(true);
      await ex.idle();
      const entry = await journal.get(cmd.id);
      if (entry === undefined || entry.state === 'ACCEPTED') continue;
      expect(entry.state).to.equal('FAILED');
      expect(entry.result?.fault).to.include({ code: 'AGENT_ERROR', retryable: true });
    }
  });

  it('prunes finished entries 7 days after their deadline, keeps the rest', async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const old: CommandBody = { ...command(), deadline: '2026-11-14T11:00:00.000Z' };
    const recent: CommandBody = { ...command(), deadline: '2026-11-14T13:00:00.000Z' };
    const unfinished: CommandBody = { ...command(), deadline: '2026-11-01T00:00:00.000Z' };
    const base = { received_at: now.toISOString(), result_sent: true };
    const done = (c: CommandBody): JournalEntry => ({
      ...base,
      command: c,
      state: 'DONE',
      result: { id: c.id, status: 'DONE', output: {} },
    });
    await journal.put(done(old));
    await journal.put(done(recent));
    await journal.put({ ...base, command: unfinished, state: 'ACCEPTED' });
    expect(await journal.prune(now)).to.equal(1);
    expect(await journal.get(old.id)).to.equal(undefined);
    expect(await journal.get(recent.id)).to.not.equal(undefined);
    expect(await journal.get(unfinished.id)).to.not.equal(undefined);
  });

  it("prunes by the agent's own deadline, not the controller's: a controller clock far behind prunes nothing early", async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    // Received an hour ago from a controller a year behind.
    const cmd: CommandBody = { ...command(), deadline: '2025-11-21T11:01:00.000Z', ttl_ms: 60_000 };
    await journal.put({
      command: cmd,
      state: 'DONE',
      received_at: '2026-11-21T11:00:00.000Z',
      expires_at: '2026-11-21T11:01:00.000Z',
      result: { id: cmd.id, status: 'DONE', output: {} },
      result_sent: true,
    });
    expect(await journal.prune(now)).to.equal(0);
    expect(await journal.prune(new Date('2026-11-28T11:02:00Z'))).to.equal(1);
  });
});
