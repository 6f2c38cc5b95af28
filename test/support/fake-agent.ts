// A site agent for tests, written against the protocol package only: it enrols, says hello, acks and
// answers commands from a journal that survives reconnections, resends reports, and can replay or
// forge frames. Each connection is a FakeLink; the FakeAgent keeps the keys and the journal.
import { createHash } from 'node:crypto';
import { WebSocket, type RawData } from 'ws';
import type { z } from 'zod';
import {
  encodeEnvelope,
  generateKeyPair,
  normaliseEnrolCode,
  openEnvelope,
  parseEnvelopeUnverified,
  SequenceCounter,
  SequenceGuard,
  signEnvelope,
  type AnyEnvelope,
  type Envelope,
  type Fault,
  type KeyPair,
  type MESSAGE_SCHEMAS,
  type MessageBody,
  type MessageType,
} from '../../protocol/index.js';

export type CommandBody = MessageBody<'command'>;

/** What the agent answers for a command. */
export type Answer =
  { status: 'DONE'; output?: unknown } | { status: 'FAILED'; fault: Fault; output?: unknown };

export const SAMPLE_FACTS = {
  serial: 'HEX4A1B2C3D',
  identity: 'Boutique-Plateau',
  model: 'RB951Ui-2HnD',
  routeros_version: '7.15.3',
  architecture: 'mipsbe',
  board_name: 'hAP',
  free_hdd_bytes: 52_428_800,
  total_hdd_bytes: 134_217_728,
  uptime_seconds: 86_400,
};

const backup = Buffer.from('RouterOS backup bytes');

/** A valid output for each catalogue command. */
export function sampleOutput(name: string): unknown {
  switch (name) {
    case 'router.facts':
      return SAMPLE_FACTS;
    case 'router.ping':
      return { rtt_ms: 2 };
    case 'hotspot.users.export':
      return { users: [], count: 0 };
    case 'backup.save':
      return {
        file_name: 'ticketnet.backup',
        size: backup.length,
        sha256: createHash('sha256').update(backup).digest('hex'),
        content_base64: backup.toString('base64'),
      };
    default:
      return {};
  }
}

/** The controller closed the link during the handshake with an `error` message. */
export class LinkRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface SendOptions {
  /** Forge: another sequence number than the next one. */
  seq?: number;
  /** Forge: another session id. */
  sid?: string;
  /** Forge: sign with another key. */
  secretKey?: string;
}

export class FakeAgent {
  readonly keys: KeyPair = generateKeyPair();
  agentId: string | undefined;
  allocationId: string | undefined;
  /** The controller key pinned at enrolment. */
  controllerKey: string | undefined;
  /** Every command frame received, redeliveries included. */
  readonly deliveries: CommandBody[] = [];
  /** How many times each command id was executed. */
  readonly executions = new Map<string, number>();
  /** Outcomes by command id: what a redelivered command is answered with, without running it again. */
  readonly journal = new Map<string, Answer>();
  /** How to run a command (default: DONE with a valid sample output). */
  execute: (command: CommandBody) => Answer = (command) => ({
    status: 'DONE',
    output: sampleOutput(command.name),
  });
  autoAck = true;
  honourJournal = true;
  /** Answer websocket pings (false: a silent, half-dead agent). */
  answerPings = true;
  /** Run and journal commands but do not send the results (a link lost before the result). */
  withholdResults = false;
  link: FakeLink | undefined;

  /** Where `dial` connects; point it at another instance to move the agent (keys and journal stay). */
  constructor(public url: string) {}

  /** Opens a socket and reads the challenge (verified by the pinned key once there is one). */
  async dial(headers?: Record<string, string>): Promise<FakeLink> {
    const link = new FakeLink(
      this,
      new WebSocket(this.url, {
        perMessageDeflate: false,
        autoPong: this.answerPings,
        ...(headers ? { headers } : {}),
      }),
    );
    await link.ready;
    this.link = link;
    return link;
  }

  /** Enrols with a code; pins the controller key of the challenge. */
  async enrol(code: string, facts?: Partial<typeof SAMPLE_FACTS>): Promise<FakeLink> {
    const link = await this.dial();
    link.send('enrol', {
      code: normaliseEnrolCode(code),
      agent_key: this.keys.publicKey,
      agent_version: '0.1.0-test',
      ...(facts ? { facts } : {}),
    });
    const welcome = await link.handshakeOutcome();
    this.agentId = welcome.agent_id;
    this.allocationId = welcome.allocation_id;
    this.controllerKey = welcome.controller_key;
    return link;
  }

  /** Connects as the enrolled agent (hello). */
  async connect(): Promise<FakeLink> {
    const link = await this.dial();
    link.send('hello', {
      agent_id: this.agentId!,
      agent_version: '0.1.0-test',
      capabilities: ['router.facts'],
    });
    await link.handshakeOutcome();
    return link;
  }

  /** Runs a command the way a real agent with a journal does; called by the link. */
  onCommand(link: FakeLink, command: CommandBody): void {
    this.deliveries.push(command);
    if (this.autoAck) link.send('ack', { id: command.id });
    let answer = this.honourJournal ? this.journal.get(command.id) : undefined;
    if (!answer) {
      this.executions.set(command.id, (this.executions.get(command.id) ?? 0) + 1);
      answer = this.execute(command);
      this.journal.set(command.id, answer);
    }
    if (!this.withholdResults) link.send('result', { id: command.id, ...answer } as MessageBody<'result'>);
  }
}

type Waiter = { match: (e: AnyEnvelope) => boolean; resolve: (e: AnyEnvelope) => void };

export class FakeLink {
  sid = '';
  readonly ready: Promise<void>;
  /** Resolves with the close code and reason once the socket is closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Verified frames from the controller, in order (the challenge included). */
  readonly frames: AnyEnvelope[] = [];
  /** Frames that did not verify against the pinned key. */
  readonly badFrames: string[] = [];
  /** The `error` the controller sent before closing, if any. */
  error: { code: string; message: string } | undefined;
  readonly out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  #controllerKey: string | undefined;
  #waiters: Waiter[] = [];

  constructor(
    readonly agent: FakeAgent,
    readonly ws: WebSocket,
  ) {
    this.#controllerKey = agent.controllerKey;
    this.closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    this.ready = new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('close', () => reject(new Error('closed before the challenge')));
      this.#waiters.push({ match: (e) => e.type === 'challenge', resolve: () => resolve() });
    });
    // Swallow later socket errors: tests look at `closed` and `error`.
    ws.on('error', () => undefined);
    ws.on('message', (raw) => this.#receive(raw));
  }

  /** Signs and sends a message; answers the wire text (to replay it). */
  send<T extends MessageType>(
    type: T,
    body: z.input<(typeof MESSAGE_SCHEMAS)[T]>,
    options: SendOptions = {},
  ): string {
    const envelope = signEnvelope(type, body, {
      sid: options.sid ?? this.sid,
      seq: options.seq ?? this.out.next(),
      secretKey: options.secretKey ?? this.agent.keys.secretKey,
    });
    const text = encodeEnvelope(envelope as Envelope);
    this.sendRaw(text);
    return text;
  }

  sendRaw(text: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  /** The first frame of a type (already received or to come) that matches. */
  waitFor<T extends MessageType>(
    type: T,
    predicate: (body: MessageBody<T>) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<Envelope<T>> {
    const match = (e: AnyEnvelope) => e.type === type && predicate(e.body as MessageBody<T>);
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen as Envelope<T>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} frame within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push({
        match,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e as Envelope<T>);
        },
      });
    });
  }

  /** The welcome, or a LinkRefusedError with the controller's error code. */
  async handshakeOutcome(): Promise<MessageBody<'welcome'>> {
    const outcome = await Promise.race([
      this.waitFor('welcome', () => true, 10_000).catch(() => undefined),
      this.closed.then(() => undefined),
    ]);
    if (outcome) return outcome.body;
    throw new LinkRefusedError(this.error?.code ?? 'CLOSED', this.error?.message ?? 'closed without error');
  }

  async close(): Promise<void> {
    this.ws.close();
    await this.closed;
  }

  #receive(raw: RawData): void {
    let envelope: AnyEnvelope;
    try {
      if (!this.sid) {
        // The first frame is the challenge; before enrolment it vouches for its own key.
        const peek = parseEnvelopeUnverified(raw, { expect: ['challenge'] });
        this.#controllerKey ??= peek.body.controller_key;
        this.sid = peek.sid;
      }
      envelope = openEnvelope(raw, { publicKey: this.#controllerKey!, sid: this.sid, from: 'controller' });
      this.#in.accept(envelope.seq);
    } catch {
      // Recorded, not thrown: a test asserts on badFrames when it cares.
      this.badFrames.push(raw.toString());
      return;
    }
    this.frames.push(envelope);
    if (envelope.type === 'error') this.error = envelope.body;
    if (envelope.type === 'command') this.agent.onCommand(this, envelope.body);
    if (envelope.type === 'ping') this.send('pong', { t: envelope.body.t });
    const waiting = this.#waiters.filter((w) => w.match(envelope));
    this.#waiters = this.#waiters.filter((w) => !w.match(envelope));
    for (const w of waiting) w.resolve(envelope);
  }
}
