// The unmodified `centrifuge` client in Node, with `ws` as its WebSocket, against /realtime.
import { Centrifuge, type PublicationContext, type Subscription } from 'centrifuge';
import WebSocket from 'ws';

/** A `ws` WebSocket that sends an Origin header, as a browser would. */
export function originWebSocket(origin: string) {
  return class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { origin });
    }
  };
}

export interface Outcome {
  client: Centrifuge;
  connected: boolean;
  code?: number;
  reason?: string;
}

/**
 * Connects and waits for connected or disconnected (a refused token ends there, no retry);
 * `getToken` is what the client asks for a new token (after a 109, token expired).
 */
export function connect(
  url: string,
  token: string,
  ws: unknown = WebSocket,
  getToken?: () => Promise<string>,
): Promise<Outcome> {
  const client = new Centrifuge(url, {
    token,
    ...(getToken ? { getToken } : {}),
    websocket: ws,
    minReconnectDelay: 50,
    maxReconnectDelay: 200,
    timeout: 3000,
  });
  return new Promise((resolve) => {
    client.once('connected', () => resolve({ client, connected: true }));
    client.once('disconnected', (ctx) =>
      resolve({ client, connected: false, code: ctx.code, reason: ctx.reason }),
    );
    // A refused upgrade never connects: the client keeps retrying, so the first transport error settles it.
    client.once('error', (ctx) => {
      if (ctx.type === 'transport')
        resolve({ client, connected: false, code: ctx.error.code, reason: ctx.error.message });
    });
    client.connect();
  });
}

/** A subscription collecting its publications' data and offsets. */
export class Collector {
  readonly data: Record<string, unknown>[] = [];
  readonly offsets: number[] = [];
  readonly sub: Subscription;
  constructor(client: Centrifuge, channel: string) {
    this.sub = client.newSubscription(channel);
    this.sub.on('publication', (ctx: PublicationContext) => {
      this.data.push(ctx.data as Record<string, unknown>);
      if (ctx.offset !== undefined) this.offsets.push(Number(ctx.offset));
    });
  }

  async subscribe(): Promise<this> {
    this.sub.subscribe();
    await this.sub.ready(3000);
    return this;
  }

  /** Waits until `n` publications arrived. */
  async count(n: number, ms = 5000): Promise<void> {
    const until = performance.now() + ms;
    while (this.data.length < n) {
      if (performance.now() > until) throw new Error(`got ${this.data.length} publications, waited for ${n}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
