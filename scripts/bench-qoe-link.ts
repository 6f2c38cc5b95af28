// One enrolled site agent of `npm run bench:qoe`, speaking the agent link as agent/link does (the
// version chosen from the challenge's offer, a signed hello with its ephemeral key, then sealed
// frames under the session keys from version 3) and sending network-quality points as `telemetry`
// reports: each resolves on its report_ack. Commands and pings are answered as the real agent does.
import { WebSocket, type RawData } from 'ws';
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
  type EphemeralKeyPair,
  type MESSAGE_SCHEMAS,
  type MessageType,
  type SessionKeys,
  type SigningKey,
  type VerifyingKey,
} from '../protocol/index.js';

export interface BenchIdentity {
  agent_id: string;
  /** Base64, seed then public key, as protocol/ signs with. */
  secret_key: string;
}

export class QoeBenchLink {
  sid = '';
  version = 1;
  readonly linked: Promise<void>;
  /** Bytes of every frame this agent sent (the link's own framing aside). */
  bytesSent = 0;
  readonly #ws: WebSocket;
  readonly #out = new SequenceCounter();
  readonly #in = new SequenceGuard();
  readonly #key: SigningKey;
  readonly #controller: VerifyingKey;
  readonly #acks = new Map<string, { resolve: () => void; reject: (err: Error) => void }>();
  readonly #pongs = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  /** Set once the controller closed the link: what was in flight is failed, not left waiting. */
  closedBy: string | undefined;
  #nextPing = 1;
  #ephemeral: EphemeralKeyPair | undefined;
  #keys: SessionKeys | undefined;
  #onLinked!: () => void;

  constructor(
    url: string,
    readonly identity: BenchIdentity,
    private readonly controllerKey: string,
  ) {
    this.#key = signingKey(identity.secret_key);
    this.#controller = verifyingKey(controllerKey);
    this.#ws = new WebSocket(url, { perMessageDeflate: false });
    this.linked = new Promise((resolve, reject) => {
      this.#onLinked = resolve;
      this.#ws.once('close', () => reject(new Error('link closed before the welcome')));
    });
    this.#ws.on('close', (code, reason) => {
      this.closedBy = `${code} ${reason.toString()}`;
      const err = new Error(`link closed (${this.closedBy})`);
      for (const waiter of [...this.#acks.values(), ...this.#pongs.values()]) waiter.reject(err);
      this.#acks.clear();
      this.#pongs.clear();
    });
    this.#ws.on('message', (raw) => this.#receive(raw));
    this.#ws.on('error', () => undefined);
  }

  /** Sends one report; resolves once the controller acknowledged it. */
  report(body: z.input<(typeof MESSAGE_SCHEMAS)['report']>): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closedBy) return reject(new Error(`link closed (${this.closedBy})`));
      this.#acks.set(body.id, { resolve, reject });
      this.send('report', body);
    });
  }

  /**
   * Sends reports in one batch, as an agent sends its outbox's backlog (version 2 and later);
   * resolves once the controller acknowledged every one.
   */
  reports(bodies: z.input<(typeof MESSAGE_SCHEMAS)['report']>[]): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closedBy) return reject(new Error(`link closed (${this.closedBy})`));
      let left = bodies.length;
      for (const body of bodies)
        this.#acks.set(body.id, {
          resolve: () => {
            if (--left === 0) resolve();
          },
          reject,
        });
      this.send('batch', { messages: bodies.map((body) => ({ type: 'report', body })) });
    });
  }

  /**
   * A ping over the sealed link; resolves on its pong. The same framing both ways as a report and
   * its ack, with nothing stored: the link's own cost per message.
   */
  ping(): Promise<void> {
    const t = this.#nextPing++;
    return new Promise((resolve, reject) => {
      if (this.closedBy) return reject(new Error(`link closed (${this.closedBy})`));
      this.#pongs.set(t, { resolve, reject });
      this.send('ping', { t });
    });
  }

  close(): void {
    this.#ws.close();
  }

  send<T extends MessageType>(type: T, body: z.input<(typeof MESSAGE_SCHEMAS)[T]>): void {
    let frame: string | Buffer;
    if (this.#keys) frame = sealFrame(type, body, { keys: this.#keys, seq: this.#out.next() });
    else
      frame = encodeEnvelope(
        signEnvelope(type, body, {
          sid: this.sid,
          seq: this.#out.next(),
          secretKey: this.#key,
          v: this.version,
        }),
      );
    this.bytesSent += frame.length;
    if (this.#ws.readyState === WebSocket.OPEN) this.#ws.send(frame);
  }

  #receive(raw: RawData): void {
    try {
      if (!this.sid) {
        this.sid = parseEnvelopeUnverified(raw, { expect: ['challenge'] }).sid;
        const challenge = openEnvelope(raw, {
          publicKey: this.#controller,
          sid: this.sid,
          expect: ['challenge'],
          from: 'controller',
        });
        this.#in.accept(challenge.seq);
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
        if (message.type === 'welcome') {
          if (this.#ephemeral) {
            this.#keys = deriveSessionKeys({
              role: 'agent',
              sid: this.sid,
              own: this.#ephemeral,
              peerPublicKey: message.body.session_key ?? '',
              agentKey: derivePublicKey(this.identity.secret_key),
              controllerKey: this.controllerKey,
            });
            this.#ephemeral = undefined;
          }
          this.#onLinked();
        } else if (message.type === 'report_ack') {
          for (const id of message.body.ids) {
            this.#acks.get(id)?.resolve();
            this.#acks.delete(id);
          }
        } else if (message.type === 'pong') {
          this.#pongs.get(message.body.t)?.resolve();
          this.#pongs.delete(message.body.t);
        } else if (message.type === 'ping') this.send('pong', { t: message.body.t });
        else if (message.type === 'command') {
          const id = message.body.id;
          this.send('ack', { id });
          this.send('result', {
            id,
            status: 'FAILED',
            fault: { code: 'UNKNOWN_COMMAND', message: 'bench agent', retryable: false },
          });
        }
      }
    } catch (err) {
      if (process.env.BENCH_DEBUG) console.error('bench agent:', err);
      this.#ws.terminate();
    }
  }
}
