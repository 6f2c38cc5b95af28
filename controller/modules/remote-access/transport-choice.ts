// What `resolve` does to a router's transports, as a pure rule: the channels it has and what the
// app asked decide the channel to add (if any), the one that serves and why. Nothing is removed
// here: removal waits for a management probe that allows it (docs/api/remote-access.md).
import type { ChannelRole, ChannelState, TransportProtocol, TransportReason } from './tables.js';

export interface ExistingChannel {
  id: string;
  protocol: TransportProtocol;
  state: ChannelState;
  /** The {vpn_host} end saw this channel's data plane at least once. */
  everConnected: boolean;
}

export interface ChoiceInput {
  /** Major RouterOS version the app read on the router. */
  major: number;
  /** `protocol` of the request: only SSTP may be asked. */
  requested: 'SSTP' | undefined;
  /** The slot's live channels (neither REVOKED nor FAILED), oldest first. */
  channels: readonly ExistingChannel[];
  /** The channel that serves now, if any. */
  activeChannelId: string | null;
}

export type Choice =
  | { kind: 'create'; protocol: TransportProtocol; role: ChannelRole; reason: TransportReason }
  | { kind: 'keep'; activeChannelId: string | null; reason: TransportReason }
  /** An SSTP channel exists already for this request: it serves, nothing new is made. */
  | { kind: 'switch'; activeChannelId: string; reason: TransportReason };

export function chooseTransport(input: ChoiceInput): Choice {
  const { major, requested, channels } = input;
  if (channels.length === 0) {
    // RouterOS 6 has no WireGuard; an app asking SSTP for a new router gets SSTP from the start.
    if (major < 7)
      return { kind: 'create', protocol: 'SSTP', role: 'PRIMARY', reason: 'ROUTEROS_V6_NO_WIREGUARD' };
    if (requested === 'SSTP')
      return { kind: 'create', protocol: 'SSTP', role: 'PRIMARY', reason: 'APP_REQUESTED' };
    return { kind: 'create', protocol: 'WIREGUARD', role: 'PRIMARY', reason: 'DEFAULT' };
  }
  if (requested !== 'SSTP')
    return { kind: 'keep', activeChannelId: input.activeChannelId, reason: 'UNCHANGED' };
  const wireguard = channels.filter((c) => c.protocol === 'WIREGUARD');
  const reason: TransportReason =
    wireguard.length > 0 && !wireguard.some((c) => c.everConnected)
      ? 'WIREGUARD_NEVER_CONNECTED'
      : 'APP_REQUESTED';
  const sstp = channels.find((c) => c.protocol === 'SSTP');
  if (sstp) {
    // A replay of the same request, or SSTP already there: it serves, no second candidate.
    if (input.activeChannelId === sstp.id)
      return { kind: 'keep', activeChannelId: sstp.id, reason: 'UNCHANGED' };
    return { kind: 'switch', activeChannelId: sstp.id, reason };
  }
  return { kind: 'create', protocol: 'SSTP', role: 'FALLBACK', reason };
}

/** The major version of a RouterOS version text (`7.19.1`, `6.49.10 (long-term)`), or undefined. */
export function routerOsMajor(version: string): number | undefined {
  const m = /^\s*v?(\d{1,2})\.\d+/.exec(version);
  return m ? Number(m[1]) : undefined;
}
