// A RADIUS client for tests, built on the `radius` codec: sends one request, waits for the reply
// (or its absence) and checks the reply's Response Authenticator and Message-Authenticator.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import radius from 'radius';
import { ensureDictionaries } from '../../controller/radius/dictionary.js';

export interface RadiusReply {
  raw: Buffer;
  code: string;
  attributes: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Response Authenticator matches the request and secret. */
  authentic: boolean;
  /** Message-Authenticator present and valid. */
  messageAuthenticator: 'valid' | 'invalid' | 'absent';
  /** Types of the reply's attributes in order. */
  attributeTypes: number[];
}

export interface ClientOptions {
  host?: string;
  port: number;
  secret: string;
  /** Source address to send from (127.0.0.2 is "another NAS" on Linux loopback). */
  localAddress?: string;
  timeoutMs?: number;
}

export type Attribute = [string | number, ...unknown[]];

export interface SendOptions {
  /** Encode with another secret (a NAS with the wrong secret). */
  secret?: string;
  messageAuthenticator?: boolean;
  identifier?: number;
}

export class RadiusTestClient {
  readonly #socket: Socket;
  readonly #ready: Promise<void>;
  #nextId = 0;
  readonly #waiting = new Map<number, (msg: Buffer) => void>();

  constructor(private readonly options: ClientOptions) {
    ensureDictionaries();
    this.#socket = createSocket('udp4');
    this.#socket.on('message', (msg) => this.#waiting.get(msg[1]!)?.(msg));
    this.#ready = new Promise((resolve) =>
      this.#socket.bind(0, options.localAddress ?? '127.0.0.1', resolve),
    );
  }

  /** Encodes a request with the codec (Access-Request and Status-Server get a random authenticator). */
  encode(code: string, attributes: Attribute[], send: SendOptions = {}): Buffer {
    return radius.encode({
      code,
      secret: send.secret ?? this.options.secret,
      identifier: send.identifier ?? this.#nextId++ % 256,
      attributes,
      add_message_authenticator: send.messageAuthenticator ?? code === 'Access-Request',
    });
  }

  /** Sends raw bytes; the reply, or null when none comes within the timeout. */
  async sendRaw(packet: Buffer, timeoutMs = this.options.timeoutMs ?? 1_000): Promise<RadiusReply | null> {
    await this.#ready;
    const id = packet[1]!;
    const raw = await new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(null);
      }, timeoutMs);
      this.#waiting.set(id, (msg) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve(msg);
      });
      this.#socket.send(packet, this.options.port, this.options.host ?? '127.0.0.1');
    });
    return raw ? this.#check(packet, raw) : null;
  }

  send(code: string, attributes: Attribute[], send: SendOptions = {}): Promise<RadiusReply | null> {
    return this.sendRaw(this.encode(code, attributes, send));
  }

  pap(username: string, password: string, extra: Attribute[] = [], send: SendOptions = {}) {
    return this.send(
      'Access-Request',
      [['User-Name', username], ['User-Password', password], ...extra],
      send,
    );
  }

  /** CHAP as a MikroTik hotspot sends it: CHAP-Password and a CHAP-Challenge of its own. */
  chap(username: string, password: string, extra: Attribute[] = []) {
    const ident = randomBytes(1);
    const challenge = randomBytes(16);
    const response = createHash('md5').update(ident).update(password).update(challenge).digest();
    return this.send('Access-Request', [
      ['User-Name', username],
      ['CHAP-Password', Buffer.concat([ident, response])],
      ['CHAP-Challenge', challenge],
      ...extra,
    ]);
  }

  accounting(
    status: 'Start' | 'Interim-Update' | 'Stop' | 'Accounting-On',
    attributes: Attribute[],
    send: SendOptions = {},
  ) {
    return this.send('Accounting-Request', [['Acct-Status-Type', status], ...attributes], send);
  }

  close(): void {
    this.#socket.close();
  }

  #check(request: Buffer, raw: Buffer): RadiusReply {
    const secret = Buffer.from(this.options.secret);
    const authentic = createHash('md5')
      .update(raw.subarray(0, 4))
      .update(request.subarray(4, 20))
      .update(raw.subarray(20))
      .update(secret)
      .digest()
      .equals(raw.subarray(4, 20));
    const types: number[] = [];
    let ma: RadiusReply['messageAuthenticator'] = 'absent';
    for (let at = 20; at < raw.length; at += raw[at + 1]!) {
      types.push(raw[at]!);
      if (raw[at] === 80) {
        const copy = Buffer.from(raw);
        // Accounting-Response: computed over a zero authenticator (FreeRADIUS); Access replies: the request's.
        if (raw[0] === 5 && request[0] === 4) copy.fill(0, 4, 20);
        else request.copy(copy, 4, 4, 20);
        copy.fill(0, at + 2, at + 18);
        const expected = createHmac('md5', secret).update(copy).digest();
        ma = expected.equals(raw.subarray(at + 2, at + 18)) ? 'valid' : 'invalid';
      }
    }
    const decoded = radius.decode_without_secret({ packet: raw });
    return {
      raw,
      code: decoded.code,
      attributes: decoded.attributes,
      authentic,
      messageAuthenticator: ma,
      attributeTypes: types,
    };
  }
}

/** The MikroTik vendor attributes of a reply, by name. */
export const mikrotik = (reply: RadiusReply): Record<string, unknown> =>
  (reply.attributes['Vendor-Specific'] as Record<string, unknown> | undefined) ?? {};
