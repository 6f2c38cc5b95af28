// The {vpn_host} end on a Linux server: WireGuard peers through wireguard-tools (`wg`) on one
// interface, SSTP accounts in accel-ppp's chap-secrets file, sessions read with `accel-cmd`
// (docs/decisions.md says why accel-ppp). Commands run through an injected `exec`, so a test
// checks what would run without a VPN server.
import { execFile } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { TransportProtocol } from './tables.js';
import type { PeerStatus, SstpAccount, VpnEndpoints, VpnHost, WireguardPeer } from './vpn-host.js';

export type Exec = (file: string, args: readonly string[], input?: string) => Promise<string>;

export const execProcess: Exec = (file, args, input) =>
  new Promise((resolve, reject) => {
    const child = execFile(file, [...args], { timeout: 10_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
    if (input !== undefined) child.stdin?.end(input);
  });

export interface LinuxVpnHostOptions {
  /** Public host routers dial. */
  host: string;
  /** WireGuard interface of the server (`wg0`). */
  wireguardInterface: string;
  /** Port accel-ppp's SSTP listens on (443 unless set). */
  sstpPort: number;
  /** accel-ppp's `[chap-secrets]` file. */
  chapSecretsPath: string;
  /** The controller's clock (an SSTP session's start is its uptime back from now). */
  now: () => Date;
  exec?: Exec;
}

export class LinuxVpnHost implements VpnHost {
  readonly #exec: Exec;

  constructor(private readonly o: LinuxVpnHostOptions) {
    this.#exec = o.exec ?? execProcess;
  }

  async endpoints(): Promise<VpnEndpoints> {
    const wg = this.o.wireguardInterface;
    const publicKey = (await this.#exec('wg', ['show', wg, 'public-key'])).trim();
    const port = Number((await this.#exec('wg', ['show', wg, 'listen-port'])).trim());
    return { host: this.o.host, wireguard: { port, publicKey }, sstp: { port: this.o.sstpPort } };
  }

  async addWireguardPeer(peer: WireguardPeer): Promise<void> {
    // The preshared key goes through stdin, never on a command line other users could read.
    await this.#exec(
      'wg',
      [
        'set',
        this.o.wireguardInterface,
        'peer',
        peer.publicKey,
        'preshared-key',
        '/dev/stdin',
        'allowed-ips',
        `${peer.tunnelAddress}/32`,
      ],
      `${peer.presharedKey}\n`,
    );
  }

  async removeWireguardPeer(publicKey: string): Promise<void> {
    await this.#exec('wg', ['set', this.o.wireguardInterface, 'peer', publicKey, 'remove']);
  }

  async addSstpAccount(account: SstpAccount): Promise<void> {
    const lines = (await this.#readSecrets()).filter((l) => firstWord(l) !== account.username);
    lines.push(`${account.username} * ${quote(account.password)} ${account.tunnelAddress}`);
    await this.#writeSecrets(lines);
  }

  async removeSstpAccount(username: string): Promise<void> {
    await this.#writeSecrets((await this.#readSecrets()).filter((l) => firstWord(l) !== username));
    await this.#exec('accel-cmd', ['terminate', 'username', username]).catch(() => undefined);
  }

  async status(protocol: TransportProtocol, key: string): Promise<PeerStatus> {
    if (protocol === 'WIREGUARD')
      return parseWireguardDump(await this.#exec('wg', ['show', this.o.wireguardInterface, 'dump']), key);
    const table = await this.#exec('accel-cmd', [
      'show',
      'sessions',
      'username,state,uptime-raw,rx-bytes-raw',
    ]);
    return parseAccelSessions(table, key, this.o.now().getTime());
  }

  async #readSecrets(): Promise<string[]> {
    const text = await readFile(this.o.chapSecretsPath, 'utf8').catch(() => '');
    return text.split('\n').filter((l) => l.trim() !== '');
  }

  // Written aside then renamed: accel-ppp never reads a half-written file.
  async #writeSecrets(lines: string[]): Promise<void> {
    const tmp = `${this.o.chapSecretsPath}.tmp`;
    await writeFile(tmp, lines.map((l) => `${l}\n`).join(''), { mode: 0o600 });
    await rename(tmp, this.o.chapSecretsPath);
  }
}

const firstWord = (line: string) => line.trim().split(/\s+/)[0];
const quote = (s: string) => `"${s.replace(/["\\]/g, '\\$&')}"`;

/** A peer's line of `wg show <if> dump`: key, psk, endpoint, allowed-ips, latest handshake, rx, tx, keepalive. */
export function parseWireguardDump(dump: string, publicKey: string): PeerStatus {
  for (const line of dump.split('\n').slice(1)) {
    const f = line.split('\t');
    if (f[0] !== publicKey) continue;
    const handshake = Number(f[4] ?? 0);
    return {
      protocol: 'WIREGUARD',
      connectedAt: handshake > 0 ? new Date(handshake * 1000).toISOString() : null,
      rxBytes: Number(f[5] ?? 0),
    };
  }
  return { protocol: 'WIREGUARD', connectedAt: null, rxBytes: 0 };
}

/** A user's row of `accel-cmd show sessions username,state,uptime-raw,rx-bytes-raw` (a `|` table). */
export function parseAccelSessions(table: string, username: string, nowMs: number): PeerStatus {
  for (const line of table.split('\n')) {
    const f = line.split('|').map((c) => c.trim());
    if (f[0] !== username || f[1] !== 'active') continue;
    return {
      protocol: 'SSTP',
      connectedAt: new Date(nowMs - Number(f[2] ?? 0) * 1000).toISOString(),
      rxBytes: Number(f[3] ?? 0),
    };
  }
  return { protocol: 'SSTP', connectedAt: null, rxBytes: 0 };
}
