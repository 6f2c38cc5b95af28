// The compression threshold is each end's own setting (the hub's `compressFrom`, the agent link's):
// every end compresses its own large frames when on and sends them plain when off, and since the
// receiver reads the flags byte of each frame, any pair of settings works together.
import { expect } from 'chai';
import sinon from 'sinon';
import { WebSocket } from 'ws';
import { openLink } from '../../../agent/link/open-link.js';
import type { ControllerMessage } from '../../../agent/link/link-session.js';
import { AgentSocket } from '../../../controller/hub/agent-session.js';
import { generateKeyPair, normaliseEnrolCode, type MessageBody } from '../../../protocol/index.js';
import { forEachDatabase } from '../../support/databases.js';
import { startHub, type HubTest, hotspotUsers as users } from './hub-fixture.js';

const OFF = Number.POSITIVE_INFINITY;
const ON = undefined; // each end's default threshold

/** Every binary frame written by a websocket in this process, with the end that wrote it. */
function recordFrames(): { frames: Array<{ from: 'controller' | 'agent'; frame: Buffer }>; restore(): void } {
  const frames: Array<{ from: 'controller' | 'agent'; frame: Buffer }> = [];
  const spy = sinon.spy(WebSocket.prototype, 'send');
  return {
    frames,
    restore: () => {
      for (const call of spy.getCalls()) {
        const data: unknown = call.args[0];
        if (!Buffer.isBuffer(data)) continue;
        frames.push({ from: call.thisValue instanceof AgentSocket ? 'controller' : 'agent', frame: data });
      }
      spy.restore();
    },
  };
}

/** The largest frame one end wrote: the bulk payload of the exchange. */
function largest(frames: Array<{ from: string; frame: Buffer }>, from: string): Buffer {
  const mine = frames.filter((f) => f.from === from).map((f) => f.frame);
  expect(mine, `frames written by the ${from}`).to.not.be.empty;
  return mine.reduce((a, b) => (b.length > a.length ? b : a));
}

forEachDatabase('agent link compression, a setting of each end', (database) => {
  let h: HubTest | undefined;
  afterEach(async () => {
    sinon.restore();
    await h?.t.close();
    h = undefined;
  });

  const settings = [
    ['on', 'on', ON, ON],
    ['on', 'off', ON, OFF],
    ['off', 'on', OFF, ON],
    ['off', 'off', OFF, OFF],
  ] as const;

  for (const [controllerName, agentName, controllerSetting, agentSetting] of settings) {
    it(`controller ${controllerName}, agent ${agentName}: each end seals its bulk frames as set, and both read them`, async () => {
      h = await startHub(database, {}, controllerSetting === OFF ? { compressFrom: OFF } : {});
      const { allocation, enrolment } = await h.allocate();
      const { session } = await openLink({
        url: h.agentUrl,
        credentials: { kind: 'enrol', code: normaliseEnrolCode(enrolment.code), keyPair: generateKeyPair() },
        agentVersion: '0.3.0',
        capabilities: [],
        ...(agentSetting === OFF ? { compressFrom: OFF } : {}),
      });
      expect(session.version).to.equal(3);
      const exported = { users: users(2000), count: 2000 };
      const received: Array<MessageBody<'command'>> = [];
      session.listen((message: ControllerMessage) => {
        if (message.type !== 'command') return;
        received.push(message.body);
        void session.send('ack', { id: message.body.id });
        const output = message.body.name === 'hotspot.users.export' ? exported : { added: 40, updated: 0 };
        void session.send('result', { id: message.body.id, status: 'DONE', output } as MessageBody<'result'>);
      });
      const { commands } = h.t.controller.services;
      const recording = recordFrames();
      let restored;
      let done;
      try {
        // Controller → agent: a restore batch; agent → controller: a 2,000-user export as a result.
        const restore = await commands.enqueue(h.client.id, allocation.id, 'hotspot.users.restore', {
          users: users(40),
        });
        restored = await commands.waitForResult(h.client.id, restore.id, 5000);
        const exporting = await commands.enqueue(h.client.id, allocation.id, 'hotspot.users.export', {});
        done = await commands.waitForResult(h.client.id, exporting.id, 5000);
      } finally {
        recording.restore();
        session.close();
      }
      // Both ends read what the other sent, whatever its setting.
      expect(received.map((c) => c.params)).to.deep.equal([{ users: users(40) }, {}]);
      expect(restored.state).to.equal('DONE');
      expect(done.state).to.equal('DONE');
      expect(done.output).to.deep.equal(exported);

      // Flags byte: bit 0 set when the payload is compressed.
      const command = largest(recording.frames, 'controller');
      const result = largest(recording.frames, 'agent');
      expect(command[1], 'command frame flags').to.equal(controllerSetting === OFF ? 0 : 1);
      expect(result[1], 'result frame flags').to.equal(agentSetting === OFF ? 0 : 1);
      const commandJson = JSON.stringify({ users: users(40) }).length;
      const resultJson = JSON.stringify(exported).length;
      if (controllerSetting === OFF) expect(command.length).to.be.above(commandJson);
      else expect(command.length).to.be.below(commandJson / 2);
      if (agentSetting === OFF) expect(result.length).to.be.above(resultJson);
      else expect(result.length).to.be.below(resultJson / 2);
    });
  }
});
