// Disconnect-Request and CoA-Request (RFC 5176) from the controller to the router. The router's
// `/radius incoming` accepts them only from the address of one of its `/radius` entries, which is
// the agent's relay address, so they must leave from the agent. Each request gets its own socket:
// the answer is whatever the router sends back to it, matched by the packet identifier.
import { createSocket, type Socket } from 'node:dgram';
import type { AgentLogger } from '../logger.js';
import type { RadiusFrame, RelayTransport } from './radius-relay.js';

/** The router's `/radius incoming` listener. */
export interface CoaTarget {
  host: string;
  /** Default 3799 (RFC 5176). */
  port: number;
  /** Local address to send from (the relay's address when it is not the wildcard). */
  localAddress?: string | undefined;
}

export const COA_PORT = 3799;

export class CoaForwarder {
  readonly #open = new Set<Socket>();

  constructor(
    private readonly target: CoaTarget,
    private readonly transport: RelayTransport,
    private readonly logger: AgentLogger,
    private readonly limits: { timeoutMs: number; maxPending: number },
  ) {}

  /** Sends the request to the router; the answer goes back to the controller as `{id, packet, peer: 'coa'}`. */
  forward(body: RadiusFrame): void {
    void this.request(Buffer.from(body.packet, 'base64'), body.id).then((answer) => {
      if (!answer) return;
      void this.transport
        .send({ id: body.id, packet: answer.toString('base64'), peer: 'coa' })
        .catch((err: unknown) =>
          this.logger.debug({ err: (err as Error).message }, 'radius coa answer not sent'),
        );
    });
  }

  /**
   * Sends one request to the router and resolves with its answer, or null when none came in time
   * (or too many are in flight, or the socket failed). Never rejects.
   */
  request(request: Buffer, id: string, signal?: AbortSignal): Promise<Buffer | null> {
    if (this.#open.size >= this.limits.maxPending) {
      this.logger.debug({ id }, 'radius coa dropped: too many in flight');
      return Promise.resolve(null);
    }
    return new Promise<Buffer | null>((resolve) => {
      const socket = createSocket({ type: 'udp4' });
      this.#open.add(socket);
      const done = (answer: Buffer | null): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        if (this.#open.delete(socket)) socket.close();
        resolve(answer);
      };
      const aborted = (): void => done(null);
      signal?.addEventListener('abort', aborted, { once: true });
      const timer = setTimeout(() => {
        this.logger.debug({ id }, 'radius coa: no answer from the router');
        done(null);
      }, this.limits.timeoutMs);
      timer.unref();
      socket.on('error', (err) => {
        this.logger.debug({ err: err.message, id }, 'radius coa socket error');
        done(null);
      });
      socket.on('message', (msg, rinfo) => {
        // Only the router's answer to this very request.
        if (rinfo.port !== this.target.port || msg.length < 20 || msg[1] !== request[1]) return;
        done(msg);
      });
      const local = this.target.localAddress;
      socket.bind(0, local && local !== '0.0.0.0' ? local : undefined, () => {
        socket.send(request, this.target.port, this.target.host, (err) => {
          if (err) {
            this.logger.debug({ err: err.message, id }, 'radius coa not sent to the router');
            done(null);
          }
        });
      });
    });
  }

  stop(): void {
    for (const socket of this.#open) socket.close();
    this.#open.clear();
  }
}
