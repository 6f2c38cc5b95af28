// The relay's connections to devices, kept open between requests (HTTP keep-alive): a page and its
// assets reuse a few streams of the agent link instead of each opening a stream, the agent's TCP
// connection to the router's forward and the device's own connection, then closing all three.
// A connection belongs to one tenant's device on one router port: the pool key names all of them,
// so a request never travels on a connection opened for another device or another tenant. It is
// closed once idle for `idleMs` (sooner when the device announces a shorter keep-alive), and with
// the link. Every request is still checked (bearer, tenant, status, owner) before it gets one.
import { Agent, type AgentOptions, type ClientRequestArgs } from 'node:http';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { AppError } from '../../core/app-error.js';
import type { AgentHub } from '../../hub/index.js';

/** Where a relayed request goes: a device behind a router's dst-nat port. */
export interface RelayTarget {
  allocationId: string;
  dstnatPort: number;
  lanIp: string;
  servicePort: number;
  protocol: 'http' | 'https';
}

/** Request options naming the device a connection is for (see `RelayPool#requestOptions`). */
interface PoolRequestOptions extends ClientRequestArgs {
  relayKey?: string;
  relayTarget?: RelayTarget;
}

export interface RelayPoolOptions {
  hub: Pick<AgentHub, 'openStream'>;
  /** A kept connection nobody used for this long is closed. */
  idleMs: number;
  /** Idle connections kept per device (more are closed as they come free). */
  maxIdlePerDevice: number;
}

export class RelayPool extends Agent {
  readonly #hub: RelayPoolOptions['hub'];

  constructor(options: RelayPoolOptions) {
    super({
      keepAlive: true,
      timeout: options.idleMs,
      maxFreeSockets: options.maxIdlePerDevice,
      // the most recently used first: the others go idle and close, so a burst leaves few behind
      scheduling: 'lifo',
    } satisfies AgentOptions);
    this.#hub = options.hub;
  }

  /** The options that put a request on a connection of this tenant's device. */
  requestOptions(tenantId: string, deviceId: string, target: RelayTarget): PoolRequestOptions {
    const { allocationId, dstnatPort, lanIp, servicePort, protocol } = target;
    return {
      agent: this,
      relayKey: [allocationId, tenantId, deviceId, dstnatPort, protocol, lanIp, servicePort].join('|'),
      relayTarget: target,
    };
  }

  /**
   * Closes the idle connections kept on a router's link, for a stream its agent refused: it takes
   * a bounded number at once (MAX_STREAMS), idle ones included. The closings reach the agent before
   * the next opening (one ordered link). Returns how many were closed.
   */
  closeIdle(allocationId: string): number {
    let closed = 0;
    for (const [key, sockets] of Object.entries(this.freeSockets)) {
      if (!key.startsWith(`${allocationId}|`)) continue;
      for (const socket of sockets ?? []) {
        // one closed already leaves the list only at its 'close', a turn of the loop later
        if (socket.destroyed) continue;
        socket.destroy();
        closed++;
      }
    }
    return closed;
  }

  override getName(options?: PoolRequestOptions): string {
    const key = options?.relayKey;
    // a request without a key would share connections with every other such request: refused
    if (!key) throw new Error('a relayed request needs its device key');
    return key;
  }

  // node:http calls this for a new connection; an error goes to the request ('error').
  override createConnection(
    options: PoolRequestOptions,
    callback: (err: Error | null, socket?: Duplex) => void,
  ): Duplex | undefined {
    const target = options.relayTarget!;
    const stream = this.#hub.openStream(target.allocationId, target.dstnatPort);
    if (!stream) {
      callback(
        new AppError(
          'EQUIPMENT_LINK_DOWN',
          "The router's agent link is down; the device cannot be reached now",
        ),
      );
      return undefined;
    }
    // Embedded web servers use self-signed certificates: the path to them is our own link.
    return target.protocol === 'https' ? tlsConnect({ socket: stream, rejectUnauthorized: false }) : stream;
  }
}
