// /radius incoming: with accept=yes the router listens for Disconnect and
// CoA requests (RFC 5176) from the servers of its /radius entries, and acts
// on hotspot sessions: Disconnect ends the session (Stop, Admin-Reset), CoA
// changes its limits. Requests from unknown addresses or with a bad
// authenticator are dropped without an answer, as RouterOS does.
//
// Which session: a hotspot session is a host, known by its address, so the
// request must carry Framed-IP-Address (else NAK, Missing-Attribute); every
// other identification attribute it carries (User-Name, Acct-Session-Id,
// Calling-Station-Id) must match that very session, as RFC 5176 section 3
// requires (else NAK, Session-Context-Not-Found). A user name alone never
// picks one of a user's several hosts. The `stuckSessions` fault makes the
// router ACK a Disconnect and keep the session (a router that acknowledges
// and does nothing).
import { createSocket } from 'node:dgram';
import type { RemoteInfo, Socket } from 'node:dgram';
import type { FaultController } from './faults.js';
import type { HotspotNas } from './hotspot-nas.js';
import { replyLimits } from './hotspot-radius-attrs.js';
import { ensureMikrotikDictionary, radiusCodec } from './radius-dictionary.js';
import type { RouterState } from './router-state.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '::ffff:127.0.0.1']);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export class RadiusIncoming {
  private socket: Socket | undefined;
  private listening: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: RouterState,
    private readonly nas: HotspotNas,
    private readonly faults: FaultController,
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
    const answer = (code: string, attributes: unknown[] = []): void => {
      const reply = radiusCodec.encode_response({ packet: request, code, secret, attributes });
      socket.send(reply, rinfo.port, rinfo.address);
    };
    const nak = isDisconnect ? 'Disconnect-NAK' : 'CoA-NAK';
    const address = text(attrs['Framed-IP-Address']);
    if (!address) {
      answer(nak, [['Error-Cause', 'Missing-Attribute']]);
      return;
    }
    const session = this.identify(address, attrs);
    if (!session) {
      answer(nak, [['Error-Cause', 'Session-Context-Not-Found']]);
      return;
    }
    if (isDisconnect) {
      if (!this.faults.sessionStuck(session.identity.user))
        void this.nas.terminate(session.activeId, 'Admin-Reset');
    } else this.nas.updateLimits(session, replyLimits(attrs));
    answer(isDisconnect ? 'Disconnect-ACK' : 'CoA-ACK');
  }

  /** The session at `address`, if every identification attribute given is that session's. */
  private identify(address: string, attrs: Record<string, unknown>): ReturnType<HotspotNas['find']> {
    const session = this.nas.find(address);
    if (!session || session.identity.ip !== address) return undefined;
    const i = session.identity;
    const user = text(attrs['User-Name']);
    const id = text(attrs['Acct-Session-Id']);
    const mac = text(attrs['Calling-Station-Id']);
    if (user !== undefined && user !== i.user) return undefined;
    if (id !== undefined && id !== i.acctSessionId) return undefined;
    if (mac !== undefined && mac.toUpperCase().replace(/-/g, ':') !== i.mac.toUpperCase()) return undefined;
    return session;
  }

  close(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}
