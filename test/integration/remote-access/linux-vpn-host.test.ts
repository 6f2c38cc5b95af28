// The Linux {vpn_host} adapter against its files and commands: accel-ppp's chap-secrets written
// whole and atomically (one line per account, replaced by name, removed on retirement), the
// commands it runs (`wg`, `accel-cmd`) recorded through the injected exec.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LinuxVpnHost, type Exec } from '../../../controller/modules/remote-access/linux-vpn-host.js';

describe('remote access: Linux VPN end', () => {
  let dir: string;
  let runs: string[];
  let host: LinuxVpnHost;
  const answers: Record<string, string> = {
    'wg show wg0 public-key': 'SERVERPUBKEYSERVERPUBKEYSERVERPUBKEYSERVERP=\n',
    'wg show wg0 listen-port': '51820\n',
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tn-vpn-host-'));
    runs = [];
    const exec: Exec = async (file, args) => {
      const line = [file, ...args].join(' ');
      runs.push(line);
      return answers[line] ?? '';
    };
    host = new LinuxVpnHost({
      host: 'vpn.example.net',
      wireguardInterface: 'wg0',
      sstpPort: 443,
      chapSecretsPath: join(dir, 'chap-secrets'),
      now: () => new Date('2026-11-21T08:00:00.000Z'),
      exec,
    });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('answers its endpoints from wg', async () => {
    expect(await host.endpoints()).to.deep.equal({
      host: 'vpn.example.net',
      wireguard: { port: 51820, publicKey: 'SERVERPUBKEYSERVERPUBKEYSERVERPUBKEYSERVERP=' },
      sstp: { port: 443 },
    });
  });

  it('keeps one chap-secrets line per account, replaced by name, removed with its session', async () => {
    await writeFile(join(dir, 'chap-secrets'), '# accounts\nother * "x" 10.96.0.50\n');
    await host.addSstpAccount({ username: 'tn-a', password: 'p"w\\1', tunnelAddress: '10.96.0.2' });
    await host.addSstpAccount({ username: 'tn-b', password: 'pw2', tunnelAddress: '10.96.0.3' });
    await host.addSstpAccount({ username: 'tn-a', password: 'new', tunnelAddress: '10.96.0.4' });
    const file = join(dir, 'chap-secrets');
    expect(await readFile(file, 'utf8')).to.equal(
      '# accounts\nother * "x" 10.96.0.50\ntn-b * "pw2" 10.96.0.3\ntn-a * "new" 10.96.0.4\n',
    );
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    await host.removeSstpAccount('tn-b');
    expect(await readFile(file, 'utf8')).to.equal(
      '# accounts\nother * "x" 10.96.0.50\ntn-a * "new" 10.96.0.4\n',
    );
    expect(runs).to.deep.equal(['accel-cmd terminate username tn-b']);
    await host.addSstpAccount({ username: 'tn-c', password: 'a"b', tunnelAddress: '10.96.0.5' });
    expect(await readFile(file, 'utf8')).to.include('tn-c * "a\\"b" 10.96.0.5\n');
  });

  it('adds and removes WireGuard peers with wg set', async () => {
    await host.addWireguardPeer({ publicKey: 'PUB=', presharedKey: 'PSK=', tunnelAddress: '10.96.0.7' });
    await host.removeWireguardPeer('PUB=');
    expect(runs).to.deep.equal([
      'wg set wg0 peer PUB= preshared-key /dev/stdin allowed-ips 10.96.0.7/32',
      'wg set wg0 peer PUB= remove',
    ]);
  });
});
