// The agent's side of the link, kept up for as long as the agent runs: connect, authenticate,
// deliver commands, drain the outbox, and reconnect with backoff when anything breaks.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKeyPair, normaliseEnrolCode } from '../../protocol/index.js';
import type { MessageBody, MessageOf, MessageType } from '../../protocol/index.js';
import type { Identity, IdentityStore } from '../state/identity-store.js';
import type { Outbox } from '../state/outbox.js';
import { Backoff, DEFAULT_BACKOFF } from './backoff.js';
import type { BackoffPolicy } from './backoff.js';
import { agentLinkUrl } from './controller-url.js';
import { identityFromWelcome } from './enrolment.js';
import { LinkError } from './link-error.js';
import type { ControllerMessage, LinkSession, StreamMessageType } from './link-session.js';
import { openLink } from './open-link.js';
import type { LinkCredentials } from './open-link.js';
import { OutboxPump } from './outbox-pump.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

/** The part of the agent logger the link uses. */
export interface LinkLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
}

export interface AgentLinkOptions {
  identityStore: IdentityStore;
  outbox: Outbox;
  /** Controller base URL; needed to enrol, and overrides the saved one when given. */
  controllerUrl?: string | undefined;
  /** Enrolment code, used only while the agent has no identity. */
  enrolCode?: string | undefined;
  agentVersion: string;
  capabilities: readonly string[];
  /** Router facts to send with enrol (best effort; undefined when the router cannot be read). */
  enrolFacts?: () => Promise<MessageBody<'enrol'>['facts'] | undefined>;
  /** A verified command; the handler owns acknowledging it. */
  onCommand: (command: MessageBody<'command'>) => void;
  /** A verified `radius` frame (the RADIUS relay's answers and CoA requests); ignored when unset. */
  onRadius?: ((frame: MessageBody<'radius'>) => void) | undefined;
  /** A verified byte-stream message (the controller's relay to a device behind the router). */
  onStream?: ((message: MessageOf<StreamMessageType>) => void) | undefined;
  logger: LinkLogger;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** A connection that lasted this long resets the backoff (default 60 s). */
  stableAfterMs?: number;
  /** Reports in flight without report_ack (default 50). */
  reportBatchSize?: number;
  handshakeTimeoutMs?: number;
  /** Overrides the controller's heartbeat (tests). */
  heartbeatMs?: number;
  /** The link's compression threshold (`LinkSessionOptions.compressFrom`; Infinity: never). */
  compressFrom?: number;
  now?: () => Date;
}

export type LinkState = 'connecting' | 'ready' | 'waiting' | 'stopped';

export interface AgentLinkEvents {
  /** Authenticated; commands and reports flow. */
  ready: [session: LinkSession];
  /** A connection ended or could not be made. */
  down: [error: LinkError];
  /** First enrolment done and saved. */
  enrolled: [identity: Identity];
  /** The link will not reconnect: stopped by the agent, or refused for good by the controller. */
  stopped: [error: LinkError | undefined];
  /** Waiting `delayMs` before the next attempt. */
  waiting: [delayMs: number, attempt: number];
}

export class AgentLink extends EventEmitter<AgentLinkEvents> {
  /** Resolves when the link stops for good: undefined after stop(), the LinkError after a final refusal. */
  readonly done: Promise<LinkError | undefined>;
  #state: LinkState = 'stopped';
  #session: LinkSession | undefined;
  #identity: Identity | undefined;
  readonly #abort = new AbortController();
  readonly #backoff: Backoff;
  readonly #pump: OutboxPump;
  #resolveDone: (error: LinkError | undefined) => void = () => undefined;
  #started = false;

  constructor(private readonly options: AgentLinkOptions) {
    super();
    this.#backoff = new Backoff(options.backoff ?? DEFAULT_BACKOFF, options.random ?? Math.random);
    this.#pump = new OutboxPump(options.outbox, options.reportBatchSize ?? 50, options.logger);
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  get state(): LinkState {
    return this.#state;
  }

  /** The live session, when ready. */
  get session(): LinkSession | undefined {
    return this.#session?.isOpen ? this.#session : undefined;
  }

  /** Starts connecting; does nothing if already started. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#loop().then(
      (error) => this.#finish(error),
      (err: unknown) => {
        this.options.logger.error({ err: (err as Error).message }, 'agent link crashed');
        this.#finish(new LinkError('CLOSED', (err as Error).message, 'agent'));
      },
    );
  }

  /** Stops for good: closes the connection and cancels any wait. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#session?.close();
    if (!this.#started) this.#finish(undefined);
    await this.done;
  }

  /** Stream bytes framed where they lie, on the live session (`LinkSession#sendStreamData`). */
  sendStreamData(id: string, buffer: Buffer, at: number, length: number): Promise<boolean> {
    const session = this.session;
    return session === undefined ? Promise.resolve(false) : session.sendStreamData(id, buffer, at, length);
  }

  /** Sends on the live session; false when there is none (the caller keeps what it must re-send). */
  async send<T extends MessageType>(type: T, body: MessageBody<T>): Promise<boolean> {
    const session = this.session;
    return session === undefined ? false : session.send(type, body);
  }

  /** Tells the link a report was added to the outbox. */
  notifyOutbox(): void {
    this.#pump.pump();
  }

  async #loop(): Promise<LinkError | undefined> {
    const signal = this.#abort.signal;
    this.#identity = await this.options.identityStore.load();
    while (!signal.aborted) {
      this.#state = 'connecting';
      let error: LinkError;
      let connectedFor = 0;
      try {
        const session = await this.#connect();
        const started = monotonicMs();
        await this.#serve(session);
        error = (await session.ended).error;
        connectedFor = monotonicMs() - started;
      } catch (err) {
        if (!(err instanceof LinkError)) throw err;
        error = err;
      }
      this.#session = undefined;
      this.#pump.detach();
      if (signal.aborted) break;
      this.emit('down', error);
      if (error.final) {
        this.options.logger.error({ code: error.code }, `${error.message}; not reconnecting`);
        return error;
      }
      // Reset only after a connection that held: one that dies at once must keep backing off.
      if (connectedFor >= (this.options.stableAfterMs ?? 60_000)) this.#backoff.reset();
      const attempt = this.#backoff.attempt;
      const delay = this.#backoff.next();
      this.#state = 'waiting';
      this.options.logger.warn(
        { code: error.code, source: error.source, delay_ms: delay, attempt },
        error.message,
      );
      this.emit('waiting', delay, attempt);
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
    return undefined;
  }

  async #connect(): Promise<LinkSession> {
    const credentials = await this.#credentials();
    const base = this.options.controllerUrl ?? this.#identity?.controller_url;
    if (base === undefined)
      throw new LinkError('NOT_ENROLLED', 'no controller URL to connect to', 'agent', { final: true });
    const { session, controllerKey } = await openLink({
      url: agentLinkUrl(base),
      credentials,
      agentVersion: this.options.agentVersion,
      capabilities: this.options.capabilities,
      ...(this.options.handshakeTimeoutMs !== undefined
        ? { handshakeTimeoutMs: this.options.handshakeTimeoutMs }
        : {}),
      ...(this.options.heartbeatMs !== undefined ? { heartbeatMs: this.options.heartbeatMs } : {}),
      ...(this.options.compressFrom !== undefined ? { compressFrom: this.options.compressFrom } : {}),
      ...(this.options.now ? { now: this.options.now } : {}),
      signal: this.#abort.signal,
    });
    if (credentials.kind === 'enrol') {
      const identity = identityFromWelcome(
        session.welcome,
        credentials.keyPair,
        base,
        controllerKey,
        this.options.now?.() ?? new Date(),
      );
      // Saved before anything else happens on the link: the code is spent, this key is all we have.
      await this.options.identityStore.save(identity);
      this.#identity = identity;
      this.options.logger.info(
        { agent_id: identity.agent_id, allocation_id: identity.allocation_id },
        'enrolled',
      );
      this.emit('enrolled', identity);
    }
    return session;
  }

  async #credentials(): Promise<LinkCredentials> {
    if (this.#identity !== undefined) return { kind: 'hello', identity: this.#identity };
    const code = this.options.enrolCode;
    if (code === undefined) {
      throw new LinkError('NOT_ENROLLED', 'not enrolled and no enrolment code given', 'agent', {
        final: true,
      });
    }
    // The router may be slow to answer: stop() must not wait for its facts.
    const facts = await untilStopped(
      this.options.enrolFacts?.().catch(() => undefined),
      this.#abort.signal,
    );
    return {
      kind: 'enrol',
      code: normaliseEnrolCode(code),
      keyPair: generateKeyPair(),
      ...(facts ? { facts } : {}),
    };
  }

  async #serve(session: LinkSession): Promise<void> {
    this.#session = session;
    // stop() came while the handshake was finishing: it could not see this session yet.
    if (this.#abort.signal.aborted) {
      session.close();
      return;
    }
    this.#state = 'ready';
    this.options.logger.info(
      { agent_id: session.welcome.agent_id, heartbeat_seconds: session.welcome.heartbeat_seconds },
      'link ready',
    );
    this.#pump.attach(session);
    session.listen((message) => this.#onMessage(session, message));
    this.emit('ready', session);
    this.#pump.pump();
  }

  #onMessage(session: LinkSession, message: ControllerMessage): void {
    switch (message.type) {
      case 'command':
        this.options.onCommand(message.body);
        break;
      case 'report_ack':
        this.#pump.acknowledge(message.body.ids);
        break;
      case 'ping':
        void session.send('pong', { t: message.body.t });
        break;
      case 'radius':
        if (this.options.onRadius) {
          this.options.onRadius(message.body);
          break;
        }
        this.options.logger.debug({ type: message.type }, 'ignored controller message');
        break;
      case 'stream_open':
      case 'stream_data':
      case 'stream_credit':
      case 'stream_close':
        if (this.options.onStream) this.options.onStream(message);
        else if (message.type === 'stream_open') {
          void session.send('stream_close', { id: message.body.id, reason: 'refused', message: 'no relay' });
        }
        break;
      case 'pong':
      case 'error':
        // pong: RTT is measured by whoever pinged.
        this.options.logger.debug({ type: message.type }, 'ignored controller message');
        break;
    }
  }

  #finish(error: LinkError | undefined): void {
    this.#state = 'stopped';
    this.#session = undefined;
    this.emit('stopped', error);
    this.#resolveDone(error);
  }
}

/** `work`'s value, or undefined as soon as `signal` is aborted. */
function untilStopped<T>(work: Promise<T> | undefined, signal: AbortSignal): Promise<T | undefined> {
  if (work === undefined || signal.aborted) return Promise.resolve(undefined);
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, stopped]).finally(() => signal.removeEventListener('abort', onAbort!));
}
