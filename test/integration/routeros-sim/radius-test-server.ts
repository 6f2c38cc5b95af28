// A tiny RADIUS server for the NAS tests, on the `radius` codec: checks PAP or
// CHAP against its user list, answers Access-Accept with the user's reply
// attributes (always signed with Message-Authenticator when the request had
// one) or Access-Reject, acknowledges accounting, and records every packet.
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { ensureMikrotikDictionary, radiusCodec } from '../../routeros-sim/radius-dictionary.js';

export interface Received {
  code: string;
  attributes: Record<string, unknown>;
  /** Vendor attributes (Mikrotik-...) of the packet. */
  vendor: Record<string, unknown>;
  raw: Buffer;
  port: 'auth' | 'acct';
}

export interface TestUser {
  password: string;
  /** Reply attributes of the Access-Accept, in the codec's array form. */
  reply?: unknown[];
}

export class RadiusTestServer {
  readonly received: Received[] = [];
  readonly users = new Map<string, TestUser>();
  /** Set to false to stay silent (the NAS then retries and gives up). */
  answering = true;
  /** Leave Message-Authenticator off the replies (a pre-BlastRADIUS server). */
  omitMessageAuthenticator = false;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly secret: string,
    private readonly auth: Socket,
    private readonly acct: Socket,
  ) {
    auth.on('message', (msg, rinfo) => this.onMessage(auth, 'auth', msg, rinfo));
    acct.on('message', (msg, rinfo) => this.onMessage(acct, 'acct', msg, rinfo));
  }

  static async start(secret = 'testing123'): Promise<RadiusTestServer> {
    ensureMikrotikDictionary();
    const bind = async (): Promise<Socket> => {
      const s = createSocket('udp4');
      await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', () => resolve()));
      return s;
    };
    return new RadiusTestServer(secret, await bind(), await bind());
  }

  get authPort(): number {
    return (this.auth.address() as AddressInfo).port;
  }

  get acctPort(): number {
    return (this.acct.address() as AddressInfo).port;
  }

  /** A provisioning line pointing the router at this server. */
  radiusAddCommand(extra = ''): string {
    return `/radius add address=127.0.0.1 secret="${this.secret}" service=hotspot authentication-port=${this.authPort} accounting-port=${this.acctPort} timeout=100ms ${extra}`.trim();
  }

  accounting(status?: string): Received[] {
    return this.received.filter(
      (r) =>
        r.code === 'Accounting-Request' &&
        (status === undefined || r.attributes['Acct-Status-Type'] === status),
    );
  }

  /** Resolves once `predicate` holds over the received packets (rejects after `ms`). */
  async waitFor(predicate: (r: Received[]) => boolean, ms = 2000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('RADIUS packet not received in time');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  private onMessage(socket: Socket, port: 'auth' | 'acct', msg: Buffer, rinfo: RemoteInfo): void {
    let packet;
    try {
      // throws when the authenticator or the Message-Authenticator is wrong
      packet = radiusCodec.decode({ packet: msg, secret: this.secret });
    } catch {
      return;
    }
    const attributes = packet.attributes as Record<string, unknown>;
    const vendor = (attributes['Vendor-Specific'] ?? {}) as Record<string, unknown>;
    this.received.push({ code: packet.code, attributes, vendor, raw: msg, port });
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    if (!this.answering) return;
    let code: string;
    let reply: unknown[] = [];
    if (packet.code === 'Accounting-Request') code = 'Accounting-Response';
    else if (packet.code === 'Access-Request') {
      const user = this.users.get(String(attributes['User-Name']));
      const ok = user !== undefined && passwordMatches(attributes, user.password);
      code = ok ? 'Access-Accept' : 'Access-Reject';
      reply = ok ? [...(user.reply ?? [])] : [['Reply-Message', 'voucher inconnu']];
    } else return;
    const response = radiusCodec.encode_response({ packet, code, secret: this.secret, attributes: reply });
    socket.send(
      this.omitMessageAuthenticator ? stripMessageAuth(response, this.secret, msg) : response,
      rinfo.port,
      rinfo.address,
    );
  }

  close(): void {
    this.auth.close();
    this.acct.close();
  }
}

function passwordMatches(attributes: Record<string, unknown>, password: string): boolean {
  if (typeof attributes['User-Password'] === 'string') return attributes['User-Password'] === password;
  const chap = attributes['CHAP-Password'];
  const challenge = attributes['CHAP-Challenge'];
  if (!Buffer.isBuffer(chap) || !Buffer.isBuffer(challenge)) return false;
  const expected = createHash('md5').update(chap.subarray(0, 1)).update(password).update(challenge).digest();
  return expected.equals(chap.subarray(1));
}

/** Re-signs a reply without its Message-Authenticator attribute. */
function stripMessageAuth(response: Buffer, secret: string, request: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 20; at < response.length;) {
    const len = response[at + 1] ?? 2;
    if (response[at] !== 80) parts.push(response.subarray(at, at + len));
    at += len;
  }
  const attrs = Buffer.concat(parts);
  const out = Buffer.concat([response.subarray(0, 20), attrs]);
  out.writeUInt16BE(out.length, 2);
  request.copy(out, 4, 4, 20);
  createHash('md5').update(out).update(secret).digest().copy(out, 4);
  return out;
}
