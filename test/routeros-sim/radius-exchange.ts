// The NAS side of RADIUS over UDP: one socket per router, a request is sent
// and resent unchanged until a reply arrives or the tries run out (RouterOS
// resends after its /radius `timeout`), and a reply counts only when its
// Response Authenticator and Message-Authenticator check out; anything else
// is dropped as a router drops it.
import { createHash, createHmac } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { Socket } from 'node:dgram';
import { ensureMikrotikDictionary, radiusCodec } from './radius-dictionary.js';

export interface RadiusTarget {
  address: string;
  port: number;
  secret: string;
  /** Wait for a reply before resending. */
  timeoutMs: number;
}

export interface RadiusReply {
  code: string;
  identifier: number;
  attributes: Record<string, unknown>;
  raw: Buffer;
}

export type ExchangeResult =
  | { ok: true; reply: RadiusReply; tries: number; request: Buffer }
  | { ok: false; tries: number; request: Buffer };

export interface ExchangeOptions {
  /** Put Message-Authenticator on the request (Access-Request on 7.15+). */
  messageAuthenticator: boolean;
  /** Drop a reply without a valid Message-Authenticator (`require-message-auth=yes-for-request-resp`). */
  requireReplyMessageAuthenticator: boolean;
}

/** RouterOS sends a request this many times in all before giving up on a server (sim assumption). */
export const RADIUS_TRIES = 3;
const MESSAGE_AUTHENTICATOR = 80;
const ACCOUNTING_REQUEST = 4;

type Waiter = (reply: Buffer) => boolean;

export class RadiusExchange {
  private socket: Promise<Socket> | undefined;
  private nextIdentifier: number;
  private readonly waiting = new Map<number, Waiter>();
  private closed = false;

  constructor(
    /** Read on every try, so a fault set mid-exchange applies at once. */
    private readonly loss: () => 'requests' | 'replies' | undefined,
    firstIdentifier = 0,
  ) {
    this.nextIdentifier = firstIdentifier & 0xff;
  }

  async exchange(
    target: RadiusTarget,
    code: string,
    attributes: unknown[],
    options: ExchangeOptions,
  ): Promise<ExchangeResult> {
    ensureMikrotikDictionary();
    const socket = await this.open();
    const identifier = this.takeIdentifier();
    const request = radiusCodec.encode({
      code,
      secret: target.secret,
      identifier,
      attributes,
      add_message_authenticator: options.messageAuthenticator,
    });
    let tries = 0;
    try {
      while (tries < RADIUS_TRIES && !this.closed) {
        tries++;
        const reply = new Promise<Buffer | undefined>((resolve) => {
          const timer = setTimeout(() => {
            this.waiting.delete(identifier);
            resolve(undefined);
          }, target.timeoutMs);
          this.waiting.set(identifier, (raw) => {
            if (this.loss() === 'replies') return false;
            if (!verifyReply(request, raw, target.secret, options.requireReplyMessageAuthenticator))
              return false;
            clearTimeout(timer);
            this.waiting.delete(identifier);
            resolve(raw);
            return true;
          });
        });
        if (this.loss() !== 'requests') socket.send(request, target.port, target.address);
        const raw = await reply;
        if (raw) {
          const decoded = radiusCodec.decode({ packet: raw, secret: target.secret });
          return {
            ok: true,
            tries,
            request,
            reply: {
              code: decoded.code,
              identifier: decoded.identifier,
              attributes: decoded.attributes as Record<string, unknown>,
              raw,
            },
          };
        }
      }
      return { ok: false, tries, request };
    } finally {
      this.waiting.delete(identifier);
    }
  }

  private takeIdentifier(): number {
    for (let n = 0; n < 256; n++) {
      const id = this.nextIdentifier;
      this.nextIdentifier = (this.nextIdentifier + 1) & 0xff;
      if (!this.waiting.has(id)) return id;
    }
    throw new Error('no free RADIUS identifier');
  }

  private open(): Promise<Socket> {
    // concurrent first exchanges share one socket
    this.socket ??= this.bind();
    return this.socket;
  }

  private async bind(): Promise<Socket> {
    const socket = createSocket('udp4');
    socket.on('message', (msg: Buffer) => {
      const id = msg[1];
      if (id === undefined) return;
      this.waiting.get(id)?.(msg);
    });
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.bind(0, () => resolve()));
    // an idle NAS socket must not keep a test process alive
    socket.unref();
    return socket;
  }

  close(): void {
    this.closed = true;
    void this.socket?.then((s) => s.close());
    this.socket = undefined;
  }
}

/** RFC 2865 Response Authenticator and RFC 3579 Message-Authenticator of a reply. */
export function verifyReply(
  request: Buffer,
  reply: Buffer,
  secret: string,
  requireMessageAuth: boolean,
): boolean {
  if (reply.length < 20 || reply[1] !== request[1]) return false;
  const length = reply.readUInt16BE(2);
  if (length < 20 || length > reply.length) return false;
  const packet = Buffer.from(reply.subarray(0, length));
  const withRequestAuth = Buffer.from(packet);
  request.copy(withRequestAuth, 4, 4, 20);
  const expected = createHash('md5').update(withRequestAuth).update(secret).digest();
  if (!expected.equals(packet.subarray(4, 20))) return false;
  const ma = findAttribute(packet, MESSAGE_AUTHENTICATOR);
  if (ma === undefined) return !requireMessageAuth;
  if (ma.length !== 18) return false;
  withRequestAuth.fill(0, ma.offset + 2, ma.offset + 18);
  // An Accounting-Response signs its Message-Authenticator over a zero authenticator (FreeRADIUS,
  // and our controller, do so; radclient checks it that way), the Access replies over the request's.
  if (request[0] === ACCOUNTING_REQUEST) withRequestAuth.fill(0, 4, 20);
  const hmac = createHmac('md5', secret).update(withRequestAuth).digest();
  return hmac.equals(packet.subarray(ma.offset + 2, ma.offset + 18));
}

function findAttribute(packet: Buffer, type: number): { offset: number; length: number } | undefined {
  let offset = 20;
  while (offset + 2 <= packet.length) {
    const t = packet[offset];
    const len = packet[offset + 1] ?? 0;
    if (len < 2) return undefined;
    if (t === type) return { offset, length: len };
    offset += len;
  }
  return undefined;
}
