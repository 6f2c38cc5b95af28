// `rescue_transports`: the operator's legacy WireGuard hosts (the first is LEGACY_WG_HOST, the
// second LEGACY_WG_SECONDARY), a bridge that keeps a known way to the routers while the client's
// migration runs. Listed only while it runs and gone as soon as it ends; never a transport channel,
// never chosen to serve, never made into a fallback.
export type LegacyKind = 'LEGACY_WG_HOST' | 'LEGACY_WG_SECONDARY';

export interface LegacyHost {
  kind: LegacyKind;
  host: string;
  port: number;
  publicKey: string;
}

export interface LegacyTransport {
  kind: LegacyKind;
  protocol: 'WIREGUARD';
  legacy: true;
  endpoint: { host: string; port: number };
  server_public_key: string;
}

const KINDS: readonly LegacyKind[] = ['LEGACY_WG_HOST', 'LEGACY_WG_SECONDARY'];
const ITEM = /^([A-Za-z0-9.-]{1,255}):(\d{1,5})\/([A-Za-z0-9+/]{43}=)$/;

/** `host:port/publickey[,host:port/publickey]` (at most two); throws on anything else. */
export function parseLegacyHosts(text: string | undefined): LegacyHost[] {
  const items = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length > KINDS.length) throw new Error('at most two legacy WireGuard hosts');
  return items.map((item, i) => {
    const m = ITEM.exec(item);
    const port = m ? Number(m[2]) : 0;
    if (!m || port < 1 || port > 65535)
      throw new Error(`legacy WireGuard host "${item}": expected host:port/base64-public-key`);
    return { kind: KINDS[i]!, host: m[1]!, port, publicKey: m[3]! };
  });
}

/** What a bundle lists: the legacy hosts while the client's migration runs, else nothing. */
export function legacyTransports(hosts: readonly LegacyHost[], migrationRunning: boolean): LegacyTransport[] {
  if (!migrationRunning) return [];
  return hosts.map((h) => ({
    kind: h.kind,
    protocol: 'WIREGUARD',
    legacy: true,
    endpoint: { host: h.host, port: h.port },
    server_public_key: h.publicKey,
  }));
}
