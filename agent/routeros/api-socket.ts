// One TCP connection to the RouterOS API: tagged commands multiplexed on one
// socket, a deadline on every call, and no exception ever thrown out of a
// socket or timer callback — every failure ends as a rejected call.
import net from 'node:net';
import { routerErrorFromSocketError, routerErrorFromTrap } from './classify-fault.js';
import type { TrapPhase } from './classify-fault.js';
import { RouterError } from './router-error.js';
import type { RouterLogger } from './router-logger.js';
import { ApiFramingError, SentenceDecoder, encodeSentence } from './sentence-decoder.js';
import { decodeWin1252, encodeWin1252 } from './win1252.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

/** Attributes of one reply sentence (`=name=value` words), values as raw bytes. */
export type ApiAttributes = Map<string, Buffer>;

export interface ApiReply {
  /** `!re` sentences, in order (empty when `onRecord` took them). */
  records: ApiAttributes[];
  /** Attributes of `!done`, e.g. `ret` of add or count-only. */
  done: ApiAttributes;
  /** The router answered `!empty` (RouterOS 7.18+ when nothing matched). */
  empty: boolean;
}

export interface ApiCallOptions {
  /**
   * Longest silence allowed while waiting for this call's next reply
   * sentence. Past it the link is taken for dead and dropped: a router that
   * lost power answers nothing, and a long print that keeps streaming stays alive.
   */
  timeoutMs: number;
  /** Aborting rejects with the signal's reason and sends /cancel for the tag. */
  signal?: AbortSignal;
  /** Takes each `!re` as it arrives instead of collecting it (large prints). */
  onRecord?: (attrs: ApiAttributes) => void;
  /** Traps during login mean refused credentials. */
  phase?: TrapPhase;
  /**
   * A command that runs until cancelled (`listen`): no silence deadline (its replies come only
   * when something changes), and it does not hold the process open; it ends with the link.
   */
  untimed?: boolean;
}

export interface ApiSocketOptions {
  host: string;
  port: number;
  /** TCP keepalive idle time: the OS probes a silent peer after this long. */
  keepaliveMs: number;
  logger: RouterLogger;
}

interface PendingCall {
  command: string;
  options: ApiCallOptions;
  records: ApiAttributes[];
  empty: boolean;
  lastActivity: number;
  timer: NodeJS.Timeout | undefined;
  resolve: (reply: ApiReply) => void;
  reject: (err: unknown) => void;
  detachAbort: (() => void) | undefined;
}

/** Tags given up on keep being swallowed; bounded so a chatty router cannot grow it. */
const MAX_DRAINING = 1024;

const CHAR_EQUALS = 0x3d;
const TAG_PREFIX = Buffer.from('.tag=');

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('call aborted', 'AbortError');
}

export class ApiSocket {
  private readonly socket: net.Socket;
  private readonly decoder = new SentenceDecoder();
  private readonly pending = new Map<string, PendingCall>();
  /** Tags whose caller is gone (trap, cancel, abort): late replies land here. */
  private readonly draining = new Set<string>();
  private nextTag = 1;
  /** Pending calls with a deadline: while there are some, the socket holds the process open. */
  private timedCalls = 0;
  private connected = false;
  private down: RouterError | undefined;
  private lastSocketError: unknown;
  private readonly waiters: { resolve: () => void; reject: (err: RouterError) => void }[] = [];
  private readonly closed: Promise<void>;
  readonly endpoint: string;

  /** Starts connecting; use `whenConnected()` then `call()`. */
  /** This end's address on the link (how the router sees the agent); undefined before connecting. */
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }

  constructor(private readonly options: ApiSocketOptions) {
    this.endpoint = `${options.host}:${options.port}`;
    const socket = new net.Socket();
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    // every listener stays attached for the socket's whole life, so a late
    // 'error' (write after destroy, RST during close) always has a handler
    socket.on('error', (err) => this.onSocketError(err));
    socket.on('close', () => this.onSocketClose());
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.once('connect', () => this.onConnect());
    socket.setNoDelay(true);
    socket.connect({ host: options.host, port: options.port });
  }

  /** True while the link can take calls. */
  get isOpen(): boolean {
    return this.connected && this.down === undefined;
  }

  /** Number of calls waiting for their reply. */
  get pendingCalls(): number {
    return this.pending.size;
  }

  /** Resolves once TCP is connected; rejects with the reason the link went down. */
  whenConnected(): Promise<void> {
    if (this.down) return Promise.reject(this.down);
    if (this.connected) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Sends one command (words without the tag) and waits for its `!done`. */
  call(words: readonly (string | Buffer)[], options: ApiCallOptions): Promise<ApiReply> {
    if (this.down) return Promise.reject(this.down);
    const head = words[0];
    const command = head === undefined ? '' : typeof head === 'string' ? head : decodeWin1252(head);
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const tag = String(this.nextTag++);
    return new Promise<ApiReply>((resolve, reject) => {
      const call: PendingCall = {
        command,
        options,
        records: [],
        empty: false,
        lastActivity: monotonicMs(),
        timer: undefined,
        resolve,
        reject,
        detachAbort: undefined,
      };
      this.pending.set(tag, call);
      if (!options.untimed) {
        this.timedCalls++;
        this.armTimer(tag, call, options.timeoutMs);
      }
      if (signal) {
        const onAbort = (): void => this.abandon(tag, abortReason(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        call.detachAbort = () => signal.removeEventListener('abort', onAbort);
      }
      if (!options.untimed) this.socket.ref();
      this.send([...words, `.tag=${tag}`]);
    });
  }

  /** Ends the link: pending calls are rejected, the socket is closed. */
  async close(): Promise<void> {
    if (!this.down) {
      this.goDown(
        new RouterError('ROUTER_UNREACHABLE', `router ${this.endpoint}: connection closed by the agent`),
        'end',
      );
    }
    // a peer that never acknowledges the FIN must not hold close() up
    const fallback = setTimeout(() => this.socket.destroy(), 1000);
    await this.closed;
    clearTimeout(fallback);
  }

  /** Drops the link at once with `reason` (pending calls get it). */
  destroy(reason: RouterError): void {
    this.goDown(reason, 'destroy');
  }

  // ---- socket events (none of these may throw) ----------------------------

  private onConnect(): void {
    if (this.down) return;
    this.connected = true;
    // keepalive makes the OS notice a peer that vanished while the link is idle
    this.socket.setKeepAlive(true, this.options.keepaliveMs);
    for (const w of this.waiters.splice(0)) w.resolve();
    if (this.timedCalls === 0) this.socket.unref();
  }

  private onSocketError(err: Error): void {
    this.lastSocketError = err;
    if (!this.down) this.goDown(routerErrorFromSocketError(err, this.endpoint), 'destroy');
  }

  private onSocketClose(): void {
    if (this.down) return;
    const reason =
      this.lastSocketError === undefined
        ? new RouterError('ROUTER_UNREACHABLE', `router ${this.endpoint}: connection closed by the router`)
        : routerErrorFromSocketError(this.lastSocketError, this.endpoint);
    this.goDown(reason, 'destroy');
  }

  private onData(chunk: Buffer): void {
    if (this.down) return;
    try {
      for (const sentence of this.decoder.push(chunk)) {
        this.onSentence(sentence);
        if (this.down) return;
      }
    } catch (err) {
      // a corrupt stream cannot be resynchronised: drop the link
      const what = err instanceof ApiFramingError ? `API framing error (${err.message})` : String(err);
      this.options.logger.error(
        { router: this.endpoint, err: what },
        'RouterOS API stream unusable, dropping link',
      );
      this.goDown(
        new RouterError('ROUTER_UNREACHABLE', `router ${this.endpoint}: ${what}`, { cause: err }),
        'destroy',
      );
    }
  }

  private onSentence(words: Buffer[]): void {
    const head = words[0];
    if (head === undefined) return; // empty sentences are ignored by the protocol
    const reply = head.toString('latin1');
    const attrs: ApiAttributes = new Map();
    const others: string[] = [];
    let tag: string | undefined;
    for (let i = 1; i < words.length; i++) {
      const word = words[i] as Buffer;
      if (word[0] === CHAR_EQUALS) {
        const eq = word.indexOf(CHAR_EQUALS, 1);
        if (eq < 0) attrs.set(word.subarray(1).toString('latin1'), Buffer.alloc(0));
        else attrs.set(word.subarray(1, eq).toString('latin1'), word.subarray(eq + 1));
      } else if (word.subarray(0, TAG_PREFIX.length).equals(TAG_PREFIX)) {
        tag = word.subarray(TAG_PREFIX.length).toString('latin1');
      } else {
        others.push(decodeWin1252(word));
      }
    }
    if (reply === '!fatal') {
      const message = others.join(' ') || decodeWin1252(attrs.get('message') ?? Buffer.alloc(0));
      this.goDown(
        new RouterError(
          'ROUTER_UNREACHABLE',
          `router ${this.endpoint} ended the session: ${message || '!fatal'}`,
        ),
        'destroy',
      );
      return;
    }
    if (tag === undefined) {
      this.options.logger.debug({ router: this.endpoint, reply }, 'untagged RouterOS reply ignored');
      return;
    }
    if (this.draining.has(tag)) {
      if (reply === '!done') this.draining.delete(tag);
      return;
    }
    const call = this.pending.get(tag);
    if (!call) {
      this.options.logger.debug(
        { router: this.endpoint, reply, tag },
        'RouterOS reply on an unknown tag ignored',
      );
      return;
    }
    call.lastActivity = monotonicMs();
    switch (reply) {
      case '!re':
        this.onRecord(tag, call, attrs);
        return;
      case '!empty':
        call.empty = true;
        return;
      case '!trap': {
        const category = Number(attrs.get('category')?.toString('latin1'));
        const trap = {
          message: decodeWin1252(attrs.get('message') ?? Buffer.alloc(0)),
          ...(Number.isInteger(category) && attrs.has('category') ? { category } : {}),
        };
        // the router still sends !done for this tag: swallow it
        this.settle(tag, call);
        this.markDraining(tag);
        call.reject(routerErrorFromTrap(trap, call.options.phase ?? 'command', call.command));
        return;
      }
      case '!done':
        this.settle(tag, call);
        call.resolve({ records: call.records, done: attrs, empty: call.empty });
        return;
      default:
        // a reply word newer than this code must not break the link
        this.options.logger.warn(
          { router: this.endpoint, reply, command: call.command },
          'unknown RouterOS reply word',
        );
    }
  }

  private onRecord(tag: string, call: PendingCall, attrs: ApiAttributes): void {
    const consume = call.options.onRecord;
    if (!consume) {
      call.records.push(attrs);
      return;
    }
    try {
      consume(attrs);
    } catch (err) {
      this.abandon(tag, err);
    }
  }

  // ---- bookkeeping ---------------------------------------------------------

  private armTimer(tag: string, call: PendingCall, delayMs: number): void {
    call.timer = setTimeout(() => {
      if (this.pending.get(tag) !== call) return;
      const idle = monotonicMs() - call.lastActivity;
      const left = call.options.timeoutMs - idle;
      // replies came in meanwhile: wait for the rest of the allowance only
      if (left > 0) {
        this.armTimer(tag, call, left);
        return;
      }
      this.options.logger.warn(
        { router: this.endpoint, command: call.command, timeoutMs: call.options.timeoutMs },
        'RouterOS call timed out, dropping link',
      );
      this.goDown(
        new RouterError(
          'ROUTER_TIMEOUT',
          `router ${this.endpoint}: no reply to ${call.command} within ${call.options.timeoutMs} ms; link dropped`,
        ),
        'destroy',
      );
    }, delayMs);
  }

  /** Removes a call from the pending set (the caller then resolves or rejects it). */
  private settle(tag: string, call: PendingCall): void {
    clearTimeout(call.timer);
    call.detachAbort?.();
    this.pending.delete(tag);
    if (!call.options.untimed) this.timedCalls--;
    if (this.timedCalls === 0 && this.connected) this.socket.unref();
  }

  /** Gives up on a call without dropping the link: /cancel it and swallow what still comes. */
  private abandon(tag: string, reason: unknown): void {
    const call = this.pending.get(tag);
    if (!call) return;
    this.settle(tag, call);
    this.markDraining(tag);
    call.reject(reason);
    if (this.down) return;
    const cancelTag = `c${this.nextTag++}`;
    this.markDraining(cancelTag);
    this.send(['/cancel', `=tag=${tag}`, `.tag=${cancelTag}`]);
  }

  private markDraining(tag: string): void {
    this.draining.add(tag);
    if (this.draining.size > MAX_DRAINING) {
      const oldest = this.draining.values().next().value;
      if (oldest !== undefined) this.draining.delete(oldest);
    }
  }

  private send(words: readonly (string | Buffer)[]): void {
    const bytes = encodeSentence(words.map((w) => (typeof w === 'string' ? encodeWin1252(w) : w)));
    // a failed write surfaces as an 'error' event, handled above
    this.socket.write(bytes);
  }

  private goDown(reason: RouterError, how: 'end' | 'destroy'): void {
    if (this.down) return;
    this.down = reason;
    if (how === 'end' && this.connected) this.socket.end();
    else this.socket.destroy();
    const calls = [...this.pending.entries()];
    for (const [tag, call] of calls) {
      this.settle(tag, call);
      call.reject(reason);
    }
    this.draining.clear();
    for (const w of this.waiters.splice(0)) w.reject(reason);
    if (how === 'destroy')
      this.options.logger.debug({ router: this.endpoint, reason: reason.message }, 'RouterOS link down');
  }
}
