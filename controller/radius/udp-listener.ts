// The UDP side: one socket for authentication, one for accounting. Each datagram goes to the
// handler; its answer, if any, goes back to the sender. Closing stops taking packets, then waits
// for the requests still being handled so their replies and bookkeeping are not cut off.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { errorFields, type Logger } from '../logger.js';

export type PacketKind = 'auth' | 'acct';

export interface PacketSource {
  address: string;
  port: number;
}

export type PacketHandler = (kind: PacketKind, msg: Buffer, source: PacketSource) => Promise<Buffer | null>;

export interface ListenOptions {
  host: string;
  authPort: number;
  acctPort: number;
}

export interface RadiusAddresses {
  auth: AddressInfo;
  acct: AddressInfo;
}

// Bursts from many NAS at once queue in the kernel; the default buffer (~200 KB) drops them.
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

export class UdpListener {
  readonly #sockets: Socket[] = [];
  #inFlight = 0;
  #drained: (() => void) | null = null;

  constructor(
    private readonly handler: PacketHandler,
    private readonly logger: Logger,
  ) {}

  async listen(options: ListenOptions): Promise<RadiusAddresses> {
    const auth = await this.#bind('auth', options.host, options.authPort);
    const acct = await this.#bind('acct', options.host, options.acctPort);
    return { auth, acct };
  }

  /** Stops taking packets, lets the requests in work answer (up to `drainMs`), then closes the sockets. */
  async close(drainMs = 5_000): Promise<void> {
    const sockets = this.#sockets.splice(0);
    for (const s of sockets) s.removeAllListeners('message');
    if (this.#inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.#drained = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs))),
      ]);
      clearTimeout(timer);
    }
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }

  async #bind(kind: PacketKind, host: string, port: number): Promise<AddressInfo> {
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    try {
      socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
    } catch (err) {
      // Capped by the kernel (net.core.rmem_max); the default buffer still works, with more drops under bursts.
      this.logger.debug(errorFields(err, this.logger), 'radius receive buffer not enlarged');
    }
    socket.on('error', (err) =>
      this.logger.error({ ...errorFields(err, this.logger), kind }, 'radius socket error'),
    );
    socket.on('message', (msg, rinfo) => this.#receive(socket, kind, msg, rinfo));
    this.#sockets.push(socket);
    return socket.address();
  }

  // One promise reaction per request (this runs for every datagram): the handler's answer is sent
  // from it, and both outcomes end the request.
  #receive(socket: Socket, kind: PacketKind, msg: Buffer, rinfo: RemoteInfo): void {
    this.#inFlight++;
    this.handler(kind, msg, rinfo).then(
      (reply) => {
        if (reply) {
          try {
            socket.send(reply, rinfo.port, rinfo.address, this.#sent);
          } catch (err) {
            this.#sendFailed(err as Error);
          }
        }
        this.#ended();
      },
      (err: unknown) => {
        this.logger.error({ ...errorFields(err, this.logger), kind }, 'radius request failed');
        this.#ended();
      },
    );
  }

  readonly #sent = (err: Error | null): void => {
    if (err) this.#sendFailed(err);
  };

  #ended(): void {
    if (--this.#inFlight === 0 && this.#drained) this.#drained();
  }

  #sendFailed(err: Error): void {
    // The socket closed while the reply was computed (shutdown): the NAS will retry elsewhere.
    this.logger.debug(errorFields(err, this.logger), 'radius reply not sent');
  }
}
