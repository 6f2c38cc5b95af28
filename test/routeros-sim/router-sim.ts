// RouterSim: a RouterOS router on a TCP port (API), optionally with an FTP
// server, for tests and demos. node-routeros talks to it as to a real router.
//
//   const sim = new RouterSim({ serial: 'HEX1234ABCD', version: '7.19' });
//   await sim.start();           // sim.port is now the API port
//   sim.faults.set({ delayMs: 200 });
//   sim.state.table('/ip/hotspot/user').list();
//   await sim.runScript('/radius add address=10.0.0.1 secret=s service=hotspot');
//   await sim.hotspotLogin({ user: 'abc', password: 'abc' });   // local user or RADIUS
//   await sim.stop();
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { ApiSession } from './api-session.js';
import { BOARD_PROFILES } from './board-profiles.js';
import type { Architecture } from './board-profiles.js';
import type { SimContext } from './command-types.js';
import { FaultController } from './faults.js';
import { FtpServer } from './ftp-server.js';
import { HotspotNas } from './hotspot-nas.js';
import { SimIpServices } from './ip-services.js';
import { SimLan } from './lan-devices.js';
import type { HotspotLoginRequest, HotspotLoginResult, TrafficDelta } from './hotspot-nas.js';
import type { TerminateCause } from './hotspot-radius-attrs.js';
import { Prng } from './prng.js';
import { RadiusIncoming } from './radius-incoming.js';
import { RouterState } from './router-state.js';
import { runScriptText } from './script-runner.js';
import type { ScriptRunResult } from './script-runner.js';
import { seedRouter } from './seed-data.js';
import type { SeedOptions, SeedReport } from './seed-data.js';
import { seedUserAccounts } from './user-accounts.js';
import { capabilitiesFor } from './version-caps.js';
import { SimTunnels, type VpnPeerEnd } from './vpn-tunnels.js';
import { SimBackToHome } from './back-to-home.js';
import type { Capabilities } from './version-caps.js';
import { WanLink, type WanLinkProfile } from './wan-link.js';

export interface RouterSimOptions {
  /** API port; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  /** RouterBOARD serial number (hex); also seeds the PRNG. */
  serial: string;
  identity?: string;
  /** RouterOS version, "6.49", "7.16", "7.19", "7.19.1"... */
  version: string;
  /** Model code as v6 prints it (v7 adds "RB"); defaults per architecture. */
  model?: string;
  architecture?: Architecture;
  username?: string;
  password?: string;
  seed?: SeedOptions;
  freeHddBytes?: number;
  totalHddBytes?: number;
  /** Start the FTP server on this port (0 = any free port). Off when undefined. */
  ftpPort?: number;
  /** Clock of the simulated router (defaults to the real time). */
  now?: () => Date;
  /** Interval between /ping replies when the command sets none (default 20 ms; RouterOS uses 1 s). */
  pingIntervalMs?: number;
  /** Time /system/backup/save takes (default 30 ms). */
  backupDelayMs?: number;
  /**
   * Send RADIUS Interim-Updates on real timers (the profile's radius-interim-update,
   * or Acct-Interim-Interval when it is "received"). Off by default: tests call
   * sendInterimUpdates() instead.
   */
  interimTimers?: boolean;
  /** UDP port for /radius incoming (CoA, Disconnect) instead of its configured port; 0 = any free one. */
  radiusIncomingPort?: number;
  /** The VPN server the router's WireGuard and SSTP tunnels reach (none: they never come up). */
  vpnPeerEnd?: VpnPeerEnd;
  /** Time the Back To Home relay takes to come up once enabled (default 20 s: incomplete at 6 s). */
  backToHomeReadyMs?: number;
  /** The Internet link's round trip and loss (`SATELLITE_LINK` for a dish); a terrestrial one by default. */
  wanLink?: WanLinkProfile;
}

export class RouterSim {
  readonly state: RouterState;
  readonly faults = new FaultController();
  readonly caps: Capabilities;
  /** The hotspot as a RADIUS NAS. */
  readonly nas: HotspotNas;
  /** LAN devices, dst-nat forwarding and netwatch probes (lan-devices.ts). */
  readonly lan: SimLan;
  /** The router's web, SSH, WinBox and API services as listeners, once `services.listen()` (ip-services.ts). */
  readonly services: SimIpServices;
  /** What the seed created (e.g. the reseller fleet), for assertions. */
  readonly seedReport: SeedReport;
  private readonly incoming: RadiusIncoming;
  private readonly onShutdown = (message: string): void => {
    for (const s of this.sessions) s.shutdown(message);
  };
  private readonly ctx: SimContext;
  private readonly server: Server;
  private readonly sessions = new Set<ApiSession>();
  private readonly sockets = new Set<Socket>();
  private ftp: FtpServer | undefined;
  private listening = false;

  constructor(readonly options: RouterSimOptions) {
    if (!/^[0-9A-Fa-f]{6,16}$/.test(options.serial)) throw new Error('serial must be 6-16 hex digits');
    this.caps = capabilitiesFor(options.version);
    const arch = options.architecture ?? (this.caps.version.major >= 7 ? 'arm64' : 'mipsbe');
    if (arch === 'arm64' && !this.caps.arm64) throw new Error('RouterOS 6 has no arm64 build');
    const base = BOARD_PROFILES[arch];
    const board = { ...base, model: options.model ?? base.model };
    const serial = options.serial.toUpperCase();
    this.state = new RouterState(
      {
        serial,
        board,
        caps: this.caps,
        freeHddBytes: options.freeHddBytes ?? board.freeHdd,
        totalHddBytes: options.totalHddBytes ?? board.totalHdd,
        now: options.now ?? (() => new Date()),
      },
      this.faults,
    );
    this.seedReport = seedRouter(this.state, options.identity ?? 'MikroTik', options.seed);
    seedUserAccounts(this.state, options.username ?? 'admin', options.password ?? '');
    const rng = new Prng(`${serial}:runtime`);
    this.nas = new HotspotNas(this.state, this.faults, new Prng(`${serial}:nas`), {
      interimTimers: options.interimTimers ?? false,
    });
    this.incoming = new RadiusIncoming(
      this.state,
      this.nas,
      this.faults,
      options.host ?? '127.0.0.1',
      options.radiusIncomingPort,
    );
    this.ctx = {
      state: this.state,
      faults: this.faults,
      credentials: { username: options.username ?? 'admin', password: options.password ?? '' },
      timing: { pingIntervalMs: options.pingIntervalMs ?? 20, backupDelayMs: options.backupDelayMs ?? 30 },
      rng,
      nas: this.nas,
      tunnels: new SimTunnels(this.state, this.faults, options.vpnPeerEnd),
      backToHome: new SimBackToHome(this.state, options.backToHomeReadyMs ?? 20_000),
      wan: new WanLink(rng, options.wanLink),
    };
    this.lan = new SimLan(this.state, options.host ?? '127.0.0.1', this.ctx.wan);
    this.services = new SimIpServices(this.state, options.host ?? '127.0.0.1', () => this.port);
    this.faults.on('shutdown', this.onShutdown);
    this.server = createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
  }

  private accept(socket: Socket): void {
    // every socket is tracked so stop() can always close the server
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const refuse = this.faults.active.refuseConnections;
    if (refuse === 'reset') return void socket.resetAndDestroy();
    if (refuse) {
      socket.end();
      // a refused peer that never closes its side must not keep the socket open
      socket.on('end', () => socket.destroy());
      return;
    }
    socket.setNoDelay(true);
    const session = new ApiSession(socket, this.ctx);
    this.sessions.add(session);
    socket.on('close', () => this.sessions.delete(session));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.listening = true;
    if (this.options.ftpPort !== undefined) {
      this.ftp = new FtpServer(this.ctx, this.options.host ?? '127.0.0.1');
      await this.ftp.listen(this.options.ftpPort);
    }
  }

  async stop(): Promise<void> {
    this.faults.off('shutdown', this.onShutdown);
    this.nas.close();
    this.incoming.close();
    await this.lan.close();
    await this.services.close();
    for (const s of this.sessions) s.destroy();
    for (const s of this.sockets) s.destroy();
    await this.ftp?.close();
    if (this.listening) {
      this.listening = false;
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  /** API port (valid after start()). */
  get port(): number {
    return (this.server.address() as AddressInfo | null)?.port ?? 0;
  }

  get ftpPort(): number | undefined {
    return this.ftp?.port;
  }

  /** Open API connections. */
  get connections(): number {
    return this.sessions.size;
  }

  /** The Internet link from now on (its round trip and loss; undefined: terrestrial). */
  setWanLink(profile: WanLinkProfile | undefined): void {
    this.ctx.wan.profile = profile;
  }

  /**
   * A reboot: API connections drop ("system is rebooting"), hotspot sessions end (NAS-Reboot),
   * interface byte and packet counters start again from zero and the uptime restarts.
   */
  async reboot(): Promise<void> {
    for (const s of this.sessions) s.shutdown('system is rebooting');
    for (const rec of this.state.table('/ip/hotspot/active').list()) {
      await this.nas.logout(rec.props['mac-address'] ?? rec.props.user ?? '', 'NAS-Reboot');
    }
    const interfaces = this.state.table('/interface');
    for (const rec of interfaces.list()) {
      interfaces.update(rec, { 'rx-byte': '0', 'tx-byte': '0', 'rx-packet': '0', 'tx-packet': '0' });
    }
    this.state.restart();
  }

  // ---- scripts and the hotspot ------------------------------------------------

  /** Runs RouterOS script text as /system/script/run would; never throws for script errors. */
  runScript(source: string): Promise<ScriptRunResult> {
    return runScriptText(this.ctx, source, 'run');
  }

  /** A client logs in to the hotspot (local user table, else RADIUS when the profile uses it). */
  hotspotLogin(request: HotspotLoginRequest): Promise<HotspotLoginResult> {
    return this.nas.login(request);
  }

  /** Ends a session (by user, MAC, address or active id); resolves after accounting Stop. */
  hotspotLogout(who: string, cause: TerminateCause = 'User-Request'): Promise<boolean> {
    return this.nas.logout(who, cause);
  }

  /** Adds traffic/time to a session; a reached limit ends it (Stop). */
  advanceTraffic(who: string, delta: TrafficDelta): Promise<{ found: boolean; ended?: TerminateCause }> {
    return this.nas.advanceTraffic(who, delta);
  }

  /** Sends an Interim-Update for every accounted session; resolves with the count. */
  sendInterimUpdates(): Promise<number> {
    return this.nas.sendInterimUpdates();
  }

  /** Waits until no RADIUS exchange is in progress (e.g. the Stop after an API kick). */
  flushRadius(): Promise<void> {
    return this.nas.flush();
  }

  /** UDP port of /radius incoming once accept=yes (undefined while off). */
  radiusIncomingPort(): Promise<number | undefined> {
    return this.incoming.port();
  }

  /** Counts per menu and other facts, for logs and the control API. */
  summary(): Record<string, unknown> {
    const counts: Record<string, number> = {};
    for (const path of this.state.menuPaths()) counts[path] = this.state.table(path).size;
    const { board, serial } = this.state.identity;
    return {
      serial,
      identity: this.state.table('/system/identity').single().props.name,
      version: this.caps.versionLabel,
      architecture: board.architecture,
      model: board.model,
      port: this.port,
      ftpPort: this.ftpPort ?? null,
      connections: this.connections,
      freeHddBytes: this.state.freeHddBytes(),
      files: this.state
        .table('/file')
        .list()
        .map((f) => ({ name: f.props.name, type: f.props.type, size: f.blob?.length ?? 0 })),
      counts,
      faults: this.faults.active,
    };
  }
}
