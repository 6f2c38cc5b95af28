// Opens one connection to the controller and runs the handshake:
// challenge (verified) → enrol | hello → welcome (verified) | error.
// In protocol version 3 the enrol/hello carries a fresh X25519 key and the welcome the controller's;
// the session keys derived from them authenticate every frame after the welcome.
import WebSocket from 'ws';
import {
  deriveSessionKeys,
  generateEphemeralKeyPair,
  MAC_POLY1305_FEATURE,
  negotiateVersion,
  openEnvelope,
  parseEnvelopeUnverified,
  ProtocolError,
  SequenceCounter,
  SequenceGuard,
  SEALED_VERSION,
  signEnvelope,
  encodeEnvelope,
} from '../../protocol/index.js';
import type { EphemeralKeyPair, KeyPair, MessageBody, RawFrame, SessionKeys } from '../../protocol/index.js';
import type { Identity } from '../state/identity-store.js';
import { controllerRefusal, LinkError } from './link-error.js';
import { LinkSession } from './link-session.js';

/** How the agent proves who it is: a fresh key and an enrolment code, or its saved identity. */
export type LinkCredentials =
  | { kind: 'enrol'; code: string; keyPair: KeyPair; facts?: MessageBody<'enrol'>['facts'] }
  | { kind: 'hello'; identity: Identity };

export interface OpenLinkOptions {
  /** Websocket URL of the agent link (`agentLinkUrl`). */
  url: string;
  credentials: LinkCredentials;
  agentVersion: string;
  /** Command names and features this build supports (sent in hello). */
  capabilities: readonly string[];
  /** Longest wait for the socket, the challenge and the welcome together (default 20 s). */
  handshakeTimeoutMs?: number;
  /** Overrides the controller's heartbeat (tests). */
  heartbeatMs?: number;
  /** Largest frame accepted from the controller. */
  maxPayloadBytes?: number;
  now?: () => Date;
  /** Aborting ends the handshake (the agent is stopping). */
  signal?: AbortSignal;
  /** Highest protocol version to speak (default: this build's); tests use it to act as an older agent. */
  maxVersion?: number;
  /** The session's compression threshold (`LinkSessionOptions.compressFrom`). */
  compressFrom?: number;
}

/** A live, authenticated connection and the controller key it was verified against. */
export interface OpenedLink {
  session: LinkSession;
  controllerKey: string;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_PAYLOAD = 16 * 1024 * 1024;

/**
 * Connects and authenticates. Resolves with a session whose frames are verified against the
 * controller key (the pinned one for hello; for enrol, the one that signed the challenge, which
 * the caller then pins). Rejects with a LinkError.
 */
export function openLink(options: OpenLinkOptions): Promise<OpenedLink> {
  const ws = new WebSocket(options.url, {
    perMessageDeflate: false,
    maxPayload: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD,
    handshakeTimeout: options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    ...(unmaskedLink(options.url) ? { generateMask: (mask: Buffer) => void mask.fill(0) } : {}),
  });
  return new Handshake(ws, options).run();
}

/**
 * RFC 6455 masks a client's frames so that script in a browser cannot make bytes that an
 * intermediary which does not speak WebSocket would read as a request of its own. Over TLS no
 * intermediary reads the frames, and on loopback there is none: there the mask is all zeros, which
 * `ws` skips on both ends (a pass over every byte of a device's answer less). Plain `ws://` over a
 * network keeps a random mask: a device's raw bytes travel in the agent's frames.
 */
export function unmaskedLink(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return (
    protocol === 'wss:' ||
    hostname === 'localhost' ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === '[::1]'
  );
}

class Handshake {
  readonly #guard = new SequenceGuard();
  readonly #counter = new SequenceCounter();
  readonly #secretKey: string;
  readonly #publicKey: string;
  /** Version 3: this connection's X25519 key pair, sent in the signed enrol/hello. */
  #ephemeral: EphemeralKeyPair | undefined;
  #step: 'challenge' | 'welcome' | 'done' = 'challenge';
  #sid = '';
  #controllerKey = '';
  /** Protocol version of this connection: the highest the challenge offers that this build speaks. */
  #version = 1;
  #settle: { resolve: (link: OpenedLink) => void; reject: (err: LinkError) => void } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: OpenLinkOptions,
  ) {
    const { credentials } = options;
    this.#secretKey =
      credentials.kind === 'enrol' ? credentials.keyPair.secretKey : credentials.identity.agent_secret_key;
    this.#publicKey =
      credentials.kind === 'enrol' ? credentials.keyPair.publicKey : credentials.identity.agent_public_key;
  }

  run(): Promise<OpenedLink> {
    return new Promise<OpenedLink>((resolve, reject) => {
      this.#settle = { resolve, reject };
      if (this.options.signal?.aborted) {
        this.#fail(new LinkError('CLOSED', 'agent stopping', 'agent'));
        return;
      }
      this.#timer = setTimeout(
        () =>
          this.#fail(
            new LinkError('HANDSHAKE_TIMEOUT', `no ${this.#step} from the controller in time`, 'agent'),
          ),
        this.options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
      );
      this.options.signal?.addEventListener('abort', this.#onAbort, { once: true });
      this.ws.on('message', this.#onMessage);
      this.ws.on('error', this.#onError);
      this.ws.on('close', this.#onClose);
    });
  }

  readonly #onAbort = (): void => this.#fail(new LinkError('CLOSED', 'agent stopping', 'agent'));

  readonly #onError = (err: Error): void => {
    const code = this.#sid === '' ? 'CONNECT_FAILED' : 'CLOSED';
    this.#fail(new LinkError(code, `${this.options.url}: ${err.message}`, 'network', { cause: err }));
  };

  readonly #onClose = (code: number, reason: Buffer): void => {
    this.#fail(
      new LinkError('CLOSED', `closed during the handshake (${code} ${reason.toString()})`, 'network'),
    );
  };

  // The handshake's listeners come off once it is settled; the session (or nothing) takes over.
  #detach(): void {
    clearTimeout(this.#timer);
    this.options.signal?.removeEventListener('abort', this.#onAbort);
    this.ws.off('message', this.#onMessage);
    this.ws.off('error', this.#onError);
    this.ws.off('close', this.#onClose);
  }

  readonly #onMessage = (raw: RawFrame): void => {
    try {
      if (this.#step === 'challenge') this.#onChallenge(raw);
      else if (this.#step === 'welcome') this.#onWelcome(raw);
    } catch (err) {
      if (err instanceof LinkError) this.#fail(err);
      else if (err instanceof ProtocolError)
        this.#fail(new LinkError(err.code, `handshake refused: ${err.message}`, 'agent'));
      else this.#fail(new LinkError('BAD_MESSAGE', `handshake failed: ${(err as Error).message}`, 'agent'));
    }
  };

  #onChallenge(raw: RawFrame): void {
    const { credentials } = this.options;
    const read = { expect: ['challenge' as const], from: 'controller' as const };
    let key: string;
    if (credentials.kind === 'hello') {
      // Enrolled: only the pinned key may open a session. Anything else is another controller.
      key = credentials.identity.controller_key;
    } else {
      // Enrolling: trust on first use. The key that signs the challenge is the one pinned after welcome.
      key = parseEnvelopeUnverified(raw, read).body.controller_key;
    }
    const challenge = openEnvelope(raw, { ...read, publicKey: key });
    if (challenge.body.controller_key !== key) {
      throw new LinkError(
        'CONTROLLER_KEY_MISMATCH',
        'challenge announces another controller key than the pinned one',
        'agent',
      );
    }
    this.#guard.accept(challenge.seq);
    this.#sid = challenge.sid;
    this.#controllerKey = key;
    this.#version = negotiateVersion(challenge.body.versions, this.options.maxVersion);
    if (this.#version >= SEALED_VERSION) this.#ephemeral = generateEphemeralKeyPair();
    const sessionKey = this.#ephemeral ? { session_key: this.#ephemeral.publicKey } : {};
    this.#step = 'welcome';
    const sign = {
      sid: this.#sid,
      seq: this.#counter.next(),
      secretKey: this.#secretKey,
      v: this.#version,
      ...this.#now(),
    };
    const envelope =
      credentials.kind === 'enrol'
        ? signEnvelope(
            'enrol',
            {
              code: credentials.code,
              agent_key: credentials.keyPair.publicKey,
              agent_version: this.options.agentVersion,
              ...(credentials.facts ? { facts: credentials.facts } : {}),
              ...sessionKey,
            },
            sign,
          )
        : signEnvelope(
            'hello',
            {
              agent_id: credentials.identity.agent_id,
              agent_version: this.options.agentVersion,
              capabilities: [...this.options.capabilities],
              ...sessionKey,
            },
            sign,
          );
    this.ws.send(encodeEnvelope(envelope));
  }

  #onWelcome(raw: RawFrame): void {
    const reply = openEnvelope(raw, {
      publicKey: this.#controllerKey,
      sid: this.#sid,
      expect: ['welcome', 'error'],
      from: 'controller',
      version: this.#version,
    });
    this.#guard.accept(reply.seq);
    if (reply.type === 'error') throw controllerRefusal(reply.body.code, reply.body.message);
    const welcome = reply.body;
    if (welcome.controller_key !== this.#controllerKey) {
      throw new LinkError(
        'CONTROLLER_KEY_MISMATCH',
        'welcome names another controller key than the one that signed',
        'agent',
      );
    }
    const { credentials } = this.options;
    if (credentials.kind === 'hello' && welcome.agent_id !== credentials.identity.agent_id) {
      throw new LinkError('AGENT_ID_MISMATCH', `welcome is for agent ${welcome.agent_id}`, 'agent');
    }
    const keys = this.#sessionKeys(welcome);
    this.#step = 'done';
    this.#detach();
    const session = new LinkSession({
      ws: this.ws,
      sid: this.#sid,
      controllerKey: this.#controllerKey,
      secretKey: this.#secretKey,
      welcome,
      guard: this.#guard,
      counter: this.#counter,
      version: this.#version,
      ...(keys ? { keys } : {}),
      ...(this.options.maxPayloadBytes !== undefined
        ? { maxPayloadBytes: this.options.maxPayloadBytes }
        : {}),
      ...(this.options.heartbeatMs !== undefined ? { heartbeatMs: this.options.heartbeatMs } : {}),
      ...(this.options.compressFrom !== undefined ? { compressFrom: this.options.compressFrom } : {}),
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.resolve({ session, controllerKey: this.#controllerKey });
  }

  // Version 3: the keys of the session, from our ephemeral key and the one in the verified welcome.
  #sessionKeys(welcome: MessageBody<'welcome'>): SessionKeys | undefined {
    if (this.#ephemeral === undefined) return undefined;
    if (welcome.session_key === undefined) {
      throw new LinkError('BAD_MESSAGE', `welcome of version ${this.#version} without session_key`, 'agent');
    }
    // Poly1305 when both named it: our hello (an enrol names nothing) and the signed welcome
    const poly1305 =
      this.options.credentials.kind === 'hello' &&
      this.options.capabilities.includes(MAC_POLY1305_FEATURE) &&
      (welcome.features ?? []).includes(MAC_POLY1305_FEATURE);
    const keys = deriveSessionKeys({
      role: 'agent',
      sid: this.#sid,
      own: this.#ephemeral,
      peerPublicKey: welcome.session_key,
      agentKey: this.#publicKey,
      controllerKey: this.#controllerKey,
      poly1305,
    });
    // The ephemeral secret is not needed any more; only the derived keys live on.
    this.#ephemeral = undefined;
    return keys;
  }

  #now(): { now?: Date } {
    return this.options.now ? { now: this.options.now() } : {};
  }

  #fail(error: LinkError): void {
    const settle = this.#settle;
    if (settle === undefined) return;
    this.#settle = undefined;
    this.#step = 'done';
    this.#detach();
    // Keep an 'error' listener: ws emits errors while closing, and an unhandled one kills the process.
    this.ws.on('error', () => undefined);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1008, error.code.slice(0, 100));
    else this.ws.terminate();
    settle.reject(error);
  }
}
