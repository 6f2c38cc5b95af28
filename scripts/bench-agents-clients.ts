// One client process of `npm run bench:agents`: holds up to --count simulated site agents from one
// source address, each speaking the real agent link as agent/link does: the protocol version is
// chosen from the challenge's offer, the challenge is verified with the pinned controller key,
// `hello` is signed with the agent's own key (with its ephemeral key in version 3), every controller
// frame is opened (signature or, in version 3, the session MAC; session, version, sequence; a
// batch's commands one by one), each `command` gets `ack` then `result` DONE with a valid output
// (from version 2 the two travel in one batch, as the real agent's link
// sends a held ack with a result that comes within ACK_HOLD_MS), protocol pings get a pong,
// websocket pings are answered by ws, and each agent pings the controller every heartbeat as the
// real agent does. Keys are made ready once per connection, as the real agent's link does.
// Forked by scripts/bench-agents.ts (IPC): {target: N} grows or shrinks to N linked agents,
// {stop: true} closes everything and exits. Reports {open, connecting, failed, refused} to the parent.
//   node --import tsx scripts/bench-agents-clients.ts --url ws://… --agents FILE --from 0 --count 2500 --local 127.0.0.10
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { WebSocket, type RawData } from 'ws';
import { obeyParent } from './bench-agents-support.js';
import type { z } from 'zod';
import {
  derivePublicKey,
  deriveSessionKeys,
  encodeEnvelope,
  generateEphemeralKeyPair,
  messagesOf,
  negotiateVersion,
  openEnvelope,
  openFrame,
  parseEnvelopeUnverified,
  sealFrame,
  SEALED_VERSION,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
  signingKey,
  verifyingKey,
  type MESSAGE_SCHEMAS,
  type EphemeralKeyPair,
  type MessageType,
  type SessionKeys,
  type SigningKey,
  type VerifyingKey,
} from '../protocol/index.js';
import { sampleOutput } from '../test/support/fake-agent.js';
import type { BenchAgentIdentity } from './bench-agents-server.js';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string' },
    agents: { type: 'string' },
    from: { type: 'string', default: '0' },
    count: { type: 'string', default: '2500' },
    local: { type: 'string', default: '' },
    ramp: { type: 'string', default: '100' },
    target: { type: 'string', default: '0' },
    'max-seconds': { type: 'string', default: '600' },
  },
});
if (!opt.url || !opt.agents) throw new Error('--url and --agents are required');
const url = opt.url;
const ramp = Number(opt.ramp);
const file = JSON.parse(readFileSync(opt.agents, 'utf8')) as {
  controller_key: string;
  agents: BenchAgentIdentity[];
};
const controllerKey = file.controller_key;
const identities = file.agents.slice(Number(opt.from), Number(opt.from) + Number(opt.count));

let target = Number(opt.target);
let open = 0;
let connecting = 0;
let failed = 0;
let refused = 0;
let stopping = false;
const links = new Set<AgentLink>();
// Identities not in use by a socket; a closed link gives its identity back.
const idle = [...identities].reverse();

class AgentLink {
  sid = '';
  linked = false;
  /** Protocol version of the connection, chosen from the challenge's offer. */
  version = 1;
  /** When this agent next pings the controller (ms since the epoch); 0 until linked. */
  nextPingAt = 0;
  heartbeatMs = 0;
  readonly #out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  readonly #key: SigningKey;
  readonly #controller: VerifyingKey;
  /** Version 3: this connection's ephemeral key (until the welcome), then the session keys. */
  #ephemeral: EphemeralKeyPair | undefined;
  #keys: SessionKeys | undefined;

  constructor(
    readonly identity: BenchAgentIdentity,
    readonly ws: WebSocket,
  ) {
    this.#key = signingKey(identity.secret_key);
    this.#controller = verifyingKey(controllerKey);
    ws.on('message', (raw) => this.#receive(raw));
    ws.on('error', () => undefined);
    ws.once('close', () => this.#closed());
  }

  send<T extends MessageType>(type: T, body: z.input<(typeof MESSAGE_SCHEMAS)[T]>): void {
    if (this.#keys) {
      const frame = sealFrame(type, body, { keys: this.#keys, seq: this.#out.next() });
      if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
      return;
    }
    const envelope = signEnvelope(type, body, {
      sid: this.sid,
      seq: this.#out.next(),
      secretKey: this.#key,
      v: this.version,
    });
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(encodeEnvelope(envelope));
  }

  #receive(raw: RawData): void {
    try {
      if (!this.sid) {
        // Enrolled agent: the challenge must come from the pinned key and announce it.
        this.sid = parseEnvelopeUnverified(raw, { expect: ['challenge'] }).sid;
        const challenge = openEnvelope(raw, {
          publicKey: this.#controller,
          sid: this.sid,
          expect: ['challenge'],
          from: 'controller',
        });
        this.#in.accept(challenge.seq);
        if (challenge.body.controller_key !== controllerKey) throw new Error('challenge from another key');
        this.version = negotiateVersion(challenge.body.versions);
        if (this.version >= SEALED_VERSION) this.#ephemeral = generateEphemeralKeyPair();
        this.send('hello', {
          agent_id: this.identity.agent_id,
          agent_version: '0.1.0-bench',
          capabilities: ['router.ping', 'router.facts'],
          ...(this.#ephemeral ? { session_key: this.#ephemeral.publicKey } : {}),
        });
        return;
      }
      const envelope = this.#keys
        ? openFrame(raw, { keys: this.#keys, from: 'controller', maxBytes: 16 * 1024 * 1024 })
        : openEnvelope(raw, {
            publicKey: this.#controller,
            sid: this.sid,
            from: 'controller',
            version: this.version,
          });
      this.#in.accept(envelope.seq);
      for (const message of messagesOf(envelope)) {
        switch (message.type) {
          case 'welcome':
            if (message.body.agent_id !== this.identity.agent_id)
              throw new Error('welcome for another agent');
            if (this.#ephemeral) {
              this.#keys = deriveSessionKeys({
                role: 'agent',
                sid: this.sid,
                own: this.#ephemeral,
                peerPublicKey: message.body.session_key ?? '',
                agentKey: derivePublicKey(this.identity.secret_key),
                controllerKey,
              });
              this.#ephemeral = undefined;
            }
            this.linked = true;
            this.heartbeatMs = message.body.heartbeat_seconds * 1000;
            this.nextPingAt = Date.now() + this.heartbeatMs;
            connecting -= 1;
            open += 1;
            report();
            fill();
            break;
          case 'command': {
            // A real agent journals before the ack; the bench measures the link, not the disk.
            const ack = { id: message.body.id };
            const result = {
              id: message.body.id,
              status: 'DONE' as const,
              output: sampleOutput(message.body.name),
            };
            // Version 2: the held ack leaves with the result, as agent/link/link-session.ts sends it.
            if (this.version >= 2) {
              this.send('batch', {
                messages: [
                  { type: 'ack', body: ack },
                  { type: 'result', body: result },
                ],
              });
            } else {
              this.send('ack', ack);
              this.send('result', result);
            }
            break;
          }
          case 'ping':
            this.send('pong', { t: message.body.t });
            break;
          case 'error':
            refused += 1;
            break;
          default:
            break;
        }
      }
    } catch (err) {
      // A frame that does not verify ends the link, as in the real agent.
      if (process.env.BENCH_DEBUG) console.error('bench agent:', err);
      this.ws.terminate();
    }
  }

  #closed(): void {
    links.delete(this);
    idle.push(this.identity);
    if (this.linked) open -= 1;
    else {
      connecting -= 1;
      failed += 1;
    }
    report();
    if (!stopping) setTimeout(fill, 100);
  }
}

let reportTimer: NodeJS.Timeout | undefined;
function report(): void {
  reportTimer ??= setTimeout(() => {
    reportTimer = undefined;
    const m = { open, connecting, failed, refused };
    if (process.send) process.send(m);
    else console.log(JSON.stringify(m));
  }, 50);
}

/** Opens links until `target` are linked or handshaking, at most `ramp` handshakes at a time. */
function fill(): void {
  while (!stopping && open + connecting < target && connecting < ramp && idle.length > 0) {
    const identity = idle.pop()!;
    connecting += 1;
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      ...(opt.local ? { localAddress: opt.local } : {}),
    });
    links.add(new AgentLink(identity, ws));
  }
  // Shrinking (not used by the bench, handy by hand): drop the surplus links.
  if (open > target) {
    let surplus = open - target;
    for (const link of links) {
      if (surplus-- <= 0) break;
      if (link.linked) link.ws.close();
    }
  }
}

function stop(): void {
  if (stopping) return;
  stopping = true;
  for (const link of links) link.ws.terminate();
  setTimeout(() => process.exit(0), 200);
}

obeyParent((n) => {
  target = n;
  fill();
  report();
}, stop);
setTimeout(
  () => {
    console.error('bench clients: max-seconds reached');
    stop();
  },
  Number(opt['max-seconds']) * 1000,
).unref();
// The real agent pings the controller once per heartbeat (agent/link/link-session.ts); so does
// each simulated agent, from the time it linked, through one timer for the whole process. Its
// tick keeps the pings spread out (about eight per tick per process at 10k agents and 30 s)
// without waking four processes a hundred times a second, which on two cores takes the CPU from
// the controller mid-command: an artefact of the bench that agents on their own routers never cause.
const PING_TICK_MS = 100;
setInterval(() => {
  const now = Date.now();
  for (const link of links) {
    if (link.nextPingAt === 0 || now < link.nextPingAt) continue;
    link.nextPingAt = now + link.heartbeatMs;
    if (link.ws.readyState === WebSocket.OPEN) link.ws.ping();
  }
}, PING_TICK_MS).unref();
fill();
if (!process.send) setInterval(report, 1000);
