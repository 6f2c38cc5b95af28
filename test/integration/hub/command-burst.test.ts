// A burst of commands to many agents is pipelined: the first callers get their results while later
// commands are still being stored and sent, and nothing is lost or run twice, even when an agent's
// link dies mid-burst. Observed through the order of events, never through timings.
import { expect } from 'chai';
import type { CommandView } from '../../../controller/hub/command-service.js';
import { forEachDatabase } from '../../support/databases.js';
import type { FakeAgent } from '../../support/fake-agent.js';
import { startHub, type HubTest } from './hub-fixture.js';

const AGENTS = 30;
const COMMANDS_PER_AGENT = 20;

forEachDatabase('command bursts', (database) => {
  let h: HubTest;
  let agents: FakeAgent[];
  beforeEach(async function () {
    this.timeout(60_000);
    h = await startHub(database);
    agents = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await h.enrolledAgent());
  });
  afterEach(async () => h.t.close());

  /**
   * Enqueues every command at once (one turn, as a reconciliation job does) and awaits each one's
   * outcome; `events` records, in order, each command handed to its link and each caller answered.
   */
  async function burst(events: string[], onAnswer?: (id: string) => void): Promise<CommandView[]> {
    const { commands } = h.t.controller.services;
    const runs: Promise<CommandView>[] = [];
    for (let round = 0; round < COMMANDS_PER_AGENT; round++) {
      for (const agent of agents) {
        runs.push(
          (async () => {
            const queued = await commands.enqueue(h.client.id, agent.allocationId!, 'router.ping', {});
            // The command is stored and recorded as sent: its frame leaves in this same turn.
            events.push(`sent ${queued.id}`);
            const done = await commands.waitForResult(h.client.id, queued.id, 30_000);
            events.push(`answered ${queued.id}`);
            onAnswer?.(queued.id);
            return done;
          })(),
        );
      }
    }
    return Promise.all(runs);
  }

  it('answers the first commands of a burst while later ones are still being stored and sent', async function () {
    this.timeout(60_000);
    // Another connection reads the command when its frame reaches the agent, and when its caller is
    // answered: stored (and recorded as sent) before the frame left, its result stored before the
    // caller heard of it. (On SQLite the read runs before anything else can commit.)
    const other = await h.t.db.openAnother();
    const stateOf = async (id: string) =>
      (await other.db.selectFrom('agent_commands').select('state').where('id', '=', id).executeTakeFirst())
        ?.state;
    const atReceipt: Promise<string | undefined>[] = [];
    for (const agent of agents) {
      const execute = agent.execute;
      agent.execute = (command) => {
        atReceipt.push(stateOf(command.id));
        return execute(command);
      };
    }
    const atAnswer: Promise<string | undefined>[] = [];
    const events: string[] = [];
    const views = await burst(events, (id) => atAnswer.push(stateOf(id)));
    const received = await Promise.all(atReceipt);
    const answered = await Promise.all(atAnswer);
    await other.close();
    expect(received).to.have.length(views.length);
    for (const state of received) expect(state).to.be.oneOf(['SENT', 'ACKED', 'DONE']);
    expect(answered).to.deep.equal(Array(views.length).fill('DONE'));
    const total = AGENTS * COMMANDS_PER_AGENT;
    expect(views.map((v) => v.state)).to.deep.equal(Array(total).fill('DONE'));
    const firstAnswered = events.findIndex((e) => e.startsWith('answered'));
    const lastSent = events.map((e) => e.startsWith('sent')).lastIndexOf(true);
    // One giant commit (or one send loop for the whole burst) puts every "sent" before any "answered".
    expect(firstAnswered, 'first result answered before the last command was sent').to.be.lessThan(lastSent);
    // Each caller was answered with its result as stored: the final row, DONE, acknowledged.
    for (const v of views) expect(v.acked_at).to.be.a('string');
    for (const agent of agents) {
      expect(agent.deliveries).to.have.length(COMMANDS_PER_AGENT);
      expect([...agent.executions.values()]).to.deep.equal(Array(COMMANDS_PER_AGENT).fill(1));
    }
  });

  it('loses nothing and runs nothing twice when an agent is killed mid-burst', async function () {
    this.timeout(60_000);
    const victim = agents[0]!;
    let killed = false;
    const execute = victim.execute;
    victim.execute = (command) => {
      const answer = execute(command);
      // Killed after journalling its fifth command, before answering it: the controller has it SENT
      // or ACKED, the agent's journal has it, and the commands still coming find no link.
      if (victim.executions.size === 5 && !killed) {
        killed = true;
        victim.link!.ws.terminate();
        setTimeout(() => void victim.connect(), 20);
      }
      return answer;
    };
    const views = await burst([]);
    expect(killed).to.equal(true);
    expect(views.map((v) => v.state)).to.deep.equal(Array(AGENTS * COMMANDS_PER_AGENT).fill('DONE'));
    // Every command of the victim ran once; the one it was killed on came again and was answered
    // from its journal.
    expect(victim.executions.size).to.equal(COMMANDS_PER_AGENT);
    expect([...victim.executions.values()]).to.deep.equal(Array(COMMANDS_PER_AGENT).fill(1));
    expect(victim.deliveries.length).to.be.greaterThan(COMMANDS_PER_AGENT);
  });
});
