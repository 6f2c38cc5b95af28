// The agent's handle on one router: lazy (re)connection, RouterOS API calls
// with deadlines, and typed helpers for print/add/set/remove/count. Every
// failure is a rejected promise of RouterError; nothing throws from a socket
// event. The wire client is our own (see api-socket.ts): node-routeros 1.6.9
// throws from its socket handlers and never settles calls on a dropped link.
import { attributeText, attributesToObject } from './api-attributes.js';
import { ApiSocket } from './api-socket.js';
import type { ApiAttributes, ApiReply } from './api-socket.js';
import { RouterError } from './router-error.js';
import { login } from './router-login.js';
import { SILENT_LOGGER } from './router-logger.js';
import type { RouterLogger } from './router-logger.js';

export interface RouterConnectionOptions {
  host: string;
  /** RouterOS API port; 8728 unless the site moved it. */
  port?: number;
  user: string;
  password: string;
  /** Per call: longest silence while waiting for the router's next reply (default 15 s). */
  timeoutMs?: number;
  /** TCP connect plus API login (default 10 s). */
  connectTimeoutMs?: number;
  /** TCP keepalive idle time on the API socket (default 30 s). */
  keepaliveMs?: number;
  logger?: RouterLogger;
}

/** Command parameters: `{name: value}` become `=name=value` words; a string array is sent as is. */
export type RouterParams = Readonly<Record<string, string | number | boolean>> | readonly string[];

export interface RouterCallOptions {
  /** Overrides the connection's per-call timeout (e.g. a slow backup). */
  timeoutMs?: number;
  /** Aborting rejects the call with the signal's reason and cancels it on the router. */
  signal?: AbortSignal;
}

export interface PrintOptions extends RouterCallOptions {
  /** Exact-match filters, ANDed (`?name=value` query words). */
  where?: Readonly<Record<string, string>>;
  /** Properties to return (`=.proplist=`); fewer properties, smaller replies. */
  proplist?: readonly string[];
  /**
   * Entries whose `prop` is one of `values` (`?prop=a ?prop=b … ?#|…`), ANDed with `where`: the
   * router filters, so a batch of names costs its matches, not a listing of the whole menu.
   */
  anyOf?: { readonly prop: string; readonly values: readonly string[] };
}

/** How many ids one remove command carries; keeps each sentence small. */
const REMOVE_BATCH = 100;

export const DEFAULT_API_PORT = 8728;

/** How long a session opened under a replaced login stays open for the calls it carries. */
const RETIRED_SESSION_GRACE_MS = 30_000;

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0)
    throw new RangeError(`${name} must be a positive number of milliseconds`);
  return v;
}

/** "/ip/hotspot/user", "ip hotspot user" and "/ip/hotspot/user/" all name the same menu. */
function normalisePath(path: string): string {
  const clean = path.trim().replace(/\s+/g, '/').replace(/\/+$/, '');
  return clean.startsWith('/') ? clean : `/${clean}`;
}

function paramValue(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function paramWords(params: RouterParams | undefined): string[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return [...(params as readonly string[])];
  return Object.entries(params as Readonly<Record<string, string | number | boolean>>).map(
    ([name, value]) => {
      if (name === '' || name.includes('=')) throw new TypeError(`invalid RouterOS property name "${name}"`);
      return `=${name}=${paramValue(value)}`;
    },
  );
}

function queryWords(options: PrintOptions): string[] {
  const words: string[] = [];
  if (options.proplist && options.proplist.length > 0) words.push(`=.proplist=${options.proplist.join(',')}`);
  const any = options.anyOf;
  if (any && any.values.length > 0) {
    for (const value of any.values) words.push(`?${any.prop}=${value}`);
    // One OR per extra value folds the pushed tests into one.
    if (any.values.length > 1) words.push(`?#${'|'.repeat(any.values.length - 1)}`);
  }
  // What is left on the stack is ANDed by the router: the `where` tests and the folded OR.
  for (const [name, value] of Object.entries(options.where ?? {})) words.push(`?${name}=${value}`);
  return words;
}

/** `work`, or the signal's reason as soon as it is aborted (work goes on, its outcome unheard). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort!));
}

export class RouterConnection {
  readonly host: string;
  #port: number;
  private user: string;
  private password: string;
  private readonly timeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly keepaliveMs: number;
  private readonly logger: RouterLogger;
  private api: ApiSocket | undefined;
  private opening: Promise<ApiSocket> | undefined;
  /** The socket of `opening` while it connects and logs in (close() drops it). */
  private openingApi: ApiSocket | undefined;
  /** Bumped by close(): a connection that completes afterwards is discarded. */
  private generation = 0;
  /** Sessions opened under a replaced login: left to finish their calls, closed by close(). */
  private readonly retired = new Set<ApiSocket>();

  constructor(options: RouterConnectionOptions) {
    this.host = options.host;
    this.#port = options.port ?? DEFAULT_API_PORT;
    this.user = options.user;
    this.password = options.password;
    this.timeoutMs = positive(options.timeoutMs, 15_000, 'timeoutMs');
    this.connectTimeoutMs = positive(options.connectTimeoutMs, 10_000, 'connectTimeoutMs');
    this.keepaliveMs = positive(options.keepaliveMs, 30_000, 'keepaliveMs');
    this.logger = options.logger ?? SILENT_LOGGER;
  }

  /** RouterOS API port in use. */
  get port(): number {
    return this.#port;
  }

  /**
   * Uses another login (and API port) from the next call on. The session open under the old one
   * is not cut: calls in flight finish on it, and it is closed a little later (or by close()).
   */
  useLogin(login: { user: string; password: string; port: number }): void {
    this.user = login.user;
    this.password = login.password;
    this.#port = login.port;
    this.generation++;
    const old = this.api;
    this.api = undefined;
    if (old === undefined) return;
    this.retired.add(old);
    setTimeout(() => {
      this.retired.delete(old);
      void old.close();
    }, RETIRED_SESSION_GRACE_MS).unref();
  }

  /** host:port, for messages. */
  get endpoint(): string {
    return `${this.host}:${this.port}`;
  }

  /** The credentials, for services that log in the same way (FTP). */
  get credentials(): { user: string; password: string } {
    return { user: this.user, password: this.password };
  }

  /** True when a logged-in link is up right now (calls would not need to connect). */
  get isConnected(): boolean {
    return this.api?.isOpen ?? false;
  }

  /** The agent's address as the router sees it (the API link's local end), once connected. */
  async localAddress(): Promise<string | undefined> {
    const address = (await this.link()).localAddress;
    // an IPv4-mapped IPv6 address is the IPv4 address the router sees
    return address?.startsWith('::ffff:') ? address.slice(7) : address;
  }

  /** Connects and logs in now; calls do it themselves when needed. */
  async connect(): Promise<void> {
    await this.link();
  }

  /**
   * Closes the link; pending calls are rejected. A later call connects again. A connection still
   * being made is dropped too: a router that never answers must not hold the agent's stop up
   * until the connect deadline.
   */
  async close(): Promise<void> {
    this.generation++;
    const api = this.api;
    this.api = undefined;
    this.openingApi?.destroy(
      new RouterError('ROUTER_UNREACHABLE', `router ${this.endpoint}: connection closed by the agent`),
    );
    const retired = [...this.retired];
    this.retired.clear();
    await Promise.all([api?.close(), ...retired.map((old) => old.close())]);
  }

  /** Runs a full command (e.g. "/system/reboot") and returns its `!re` records. */
  async write(
    path: string,
    params?: RouterParams,
    options?: RouterCallOptions,
  ): Promise<Record<string, string>[]> {
    const reply = await this.call(path, params, options);
    return reply.records.map(attributesToObject);
  }

  /**
   * Runs a full command and returns the raw reply (records, `!done`
   * attributes, whether it was `!empty`), values as bytes. With `onRecord`,
   * records are handed over one by one instead of collected.
   */
  async call(
    path: string,
    params?: RouterParams,
    options: RouterCallOptions & { onRecord?: (attrs: ApiAttributes) => void } = {},
  ): Promise<ApiReply> {
    const words = [normalisePath(path), ...paramWords(params)];
    // The signal counts while connecting too: the connection goes on for the next caller, this one
    // is let go at once (a command or report cancelled while the router does not answer).
    const api = await untilAborted(this.link(), options.signal);
    return api.call(words, {
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onRecord ? { onRecord: options.onRecord } : {}),
    });
  }

  /** `print` of a menu (e.g. "/ip/hotspot/user"); `[]` when nothing matches, `!empty` or not. */
  async print(path: string, options: PrintOptions = {}): Promise<Record<string, string>[]> {
    const reply = await this.call(`${normalisePath(path)}/print`, queryWords(options), options);
    return reply.records.map(attributesToObject);
  }

  /** `print` that hands each record to `onRecord` as it arrives (large menus); resolves to the count. */
  async printEach(
    path: string,
    onRecord: (record: Record<string, string>) => void,
    options: PrintOptions = {},
  ): Promise<number> {
    let count = 0;
    await this.call(`${normalisePath(path)}/print`, queryWords(options), {
      ...options,
      onRecord: (attrs) => {
        count++;
        onRecord(attributesToObject(attrs));
      },
    });
    return count;
  }

  /**
   * `listen` on a menu: `onChange` hears each `!re` the router sends when an entry is added, set or
   * removed, until `signal` aborts or the link drops. Resolves once the command is sent, with the
   * session it runs on (see `session`) and `ended`, which settles when it stops (never rejects).
   */
  async listen(
    path: string,
    onChange: () => void,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ session: object; ended: Promise<unknown> }> {
    const api = await untilAborted(this.link(), options.signal);
    const ended = api
      .call([`${normalisePath(path)}/listen`], {
        timeoutMs: this.timeoutMs,
        untimed: true,
        onRecord: () => onChange(),
        ...(options.signal ? { signal: options.signal } : {}),
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    return { session: api, ended };
  }

  /** The open API session calls go through now (opaque; another object once the link was reopened). */
  get session(): object | undefined {
    return this.api?.isOpen ? this.api : undefined;
  }

  /** `add`; resolves to the new item's id (e.g. "*1A"). */
  async add(
    path: string,
    props: Readonly<Record<string, string | number | boolean>>,
    options?: RouterCallOptions,
  ): Promise<string> {
    const menu = normalisePath(path);
    const reply = await this.call(`${menu}/add`, props, options);
    const id = attributeText(reply.done, 'ret');
    if (!id) throw new RouterError('ROUTER_TRAP', `${menu}/add: the router returned no id`);
    return id;
  }

  /** `set` of one item by id (or name, where the menu allows it). */
  async set(
    path: string,
    id: string,
    props: Readonly<Record<string, string | number | boolean>>,
    options?: RouterCallOptions,
  ): Promise<void> {
    await this.call(`${normalisePath(path)}/set`, { ...props, '.id': id }, options);
  }

  /** `remove` of items by id, in batches; stops at the first batch the router refuses. */
  async remove(path: string, ids: readonly string[], options?: RouterCallOptions): Promise<void> {
    const menu = normalisePath(path);
    for (let i = 0; i < ids.length; i += REMOVE_BATCH) {
      await this.call(`${menu}/remove`, { '.id': ids.slice(i, i + REMOVE_BATCH).join(',') }, options);
    }
  }

  /** Number of items (optionally matching `where`), counted by the router (`count-only`). */
  async count(
    path: string,
    where?: Readonly<Record<string, string>>,
    options?: RouterCallOptions,
  ): Promise<number> {
    const menu = normalisePath(path);
    const words = ['=count-only=', ...queryWords(where ? { where } : {})];
    const reply = await this.call(`${menu}/print`, words, options);
    const ret = attributeText(reply.done, 'ret');
    if (ret === undefined || ret === '') {
      if (reply.empty) return 0;
      throw new RouterError('ROUTER_TRAP', `${menu}/print count-only: the router returned no count`);
    }
    const n = Number(ret);
    if (!Number.isInteger(n) || n < 0)
      throw new RouterError('ROUTER_TRAP', `${menu}/print count-only: bad count "${ret}"`);
    return n;
  }

  // ---- link management -------------------------------------------------------

  private link(): Promise<ApiSocket> {
    if (this.api?.isOpen) return Promise.resolve(this.api);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async open(): Promise<ApiSocket> {
    const generation = this.generation;
    this.api = undefined;
    const api = new ApiSocket({
      host: this.host,
      port: this.port,
      keepaliveMs: this.keepaliveMs,
      logger: this.logger,
    });
    this.openingApi = api;
    // one deadline for TCP connect and login together: a router that accepts
    // the connection but never answers /login is as unreachable as a dead one
    const deadline = setTimeout(
      () =>
        api.destroy(
          new RouterError(
            'ROUTER_UNREACHABLE',
            `router ${this.endpoint}: no API session within ${this.connectTimeoutMs} ms`,
          ),
        ),
      this.connectTimeoutMs,
    );
    try {
      await api.whenConnected();
      await login(api, this.user, this.password, this.connectTimeoutMs * 2);
    } catch (err) {
      const reason =
        err instanceof RouterError ? err : new RouterError('ROUTER_UNREACHABLE', String(err), { cause: err });
      api.destroy(reason);
      this.logger.warn(
        { router: this.endpoint, code: reason.code, err: reason.message },
        'RouterOS API connection failed',
      );
      throw reason;
    } finally {
      clearTimeout(deadline);
      if (this.openingApi === api) this.openingApi = undefined;
    }
    if (generation !== this.generation) {
      await api.close();
      throw new RouterError('ROUTER_UNREACHABLE', `router ${this.endpoint}: connection closed by the agent`);
    }
    this.logger.debug({ router: this.endpoint }, 'RouterOS API session open');
    this.api = api;
    return api;
  }
}
