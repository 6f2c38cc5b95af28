// /radius incoming: with accept=yes the router listens for Disconnect and
// CoA requests (RFC 5176) from the servers of its /radius entries, and acts
// on hotspot sessions: Disconnect ends the session (Stop, Admin-Reset), CoA
// changes its limits. Requests from unknown addresses or with a bad
// authenticator are dropped without an answer, as RouterOS does.
import { createSocket } from 'node:dgram';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { HotspotNas } from './hotspot-nas.js';
import { replyLimits } from './hotspot-radius-attrs.js';
import { ensureMikrotikDictionary, radiusCodec } from './radius-dictionary.js';
import type { RouterState } from './router-state.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '::ffff:127.0.0.1']);

export class RadiusIncoming {
  private socket: Socket | undefined;
  private listening: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: RouterState,
    private readonly nas: HotspotNas,
    private readonly host: string,
    /** Listen here instead of the configured port (tests cannot all share 3799). */
    private readonly portOverride?: number,
  ) {
    state.table('/radius/incoming').on('change', () => {
      this.listening = this.listening.then(() => this.sync());
    });
  }

  /** Port the router listens on, once `accept=yes` has taken effect. */
  async port(): Promise<number | undefined> {
    await this.listening;
    return this.socket?.address().port;
  }

  private async sync(): Promise<void> {
    const props = this.state.table('/radius/incoming').single().props;
    const accept = props.accept === 'true';
    const wanted = this.portOverride ?? Number(props.port ?? '3799');
    const current = this.socket?.address().port;
    if (accept && this.socket && (this.portOverride !== undefined || current === wanted)) return;
    this.close();
    if (!accept) return;
    const socket = createSocket('udp4');
    socket.on('message', (msg, rinfo) => this.onMessage(socket, msg, rinfo));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.bind(wanted, this.host, () => resolve()));
    socket.unref();
    this.socket = socket;
  }

  private onMessage(socket: Socket, msg: Buffer, rinfo: RemoteInfo): void {
    ensureMikrotikDictionary();
    const entries = this.state
      .table('/radius')
      .list()
      .filter((r) => r.props.disabled !== 'true');
    const from =
      entries.find((r) => r.props.address === rinfo.address) ??
      (LOOPBACK.has(rinfo.address) ? entries.find((r) => LOOPBACK.has(r.props.address ?? '')) : undefined);
    if (!from) return;
    const secret = from.props.secret ?? '';
    let request;
    try {
      request = radiusCodec.decode({ packet: msg, secret });
    } catch {
      return;
    }
    const isDisconnect = request.code === 'Disconnect-Request';
    if (!isDisconnect && request.code !== 'CoA-Request') return;
    const attrs = request.attributes as Record<string, unknown>;
    const session =
      (typeof attrs['Acct-Session-Id'] === 'string'
        ? this.nas.find(String(attrs['Acct-Session-Id']))
        : undefined) ?? this.findBy(attrs);
    const answer = (code: string, attributes: unknown[] = []): void => {
      const reply = radiusCodec.encode_response({ packet: request, code, secret, attributes });
      socket.send(reply, rinfo.port, rinfo.address);
    };
    if (!session) {
      answer(isDisconnect ? 'Disconnect-NAK' : 'CoA-NAK', [['Error-Cause', 'Session-Context-Not-Found']]);
      return;
    }
    if (isDisconnect) void this.nas.terminate(session.activeId, 'Admin-Reset');
    else this.nas.updateLimits(session, replyLimits(attrs));
    answer(isDisconnect ? 'Disconnect-ACK' : 'CoA-ACK');
  }

  private findBy(attrs: Record<string, unknown>): ReturnType<HotspotNas['find']> {
    for (const key of ['User-Name', 'Framed-IP-Address', 'Calling-Station-Id']) {
      const v = attrs[key];
      if (typeof v === 'string') {
        const s = this.nas.find(v);
        if (s) return s;
      }
    }
    return undefined;
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}
