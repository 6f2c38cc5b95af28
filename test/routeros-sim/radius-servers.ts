// The /radius entries a hotspot login may use, in order, turned into what
// the UDP exchange needs (target, tries timeout, Message-Authenticator rules).
import type { ExchangeOptions, RadiusTarget } from './radius-exchange.js';
import { parseDuration } from './ros-format.js';
import type { RouterState } from './router-state.js';

/** A /radius entry the hotspot may use. */
export interface RadiusServer {
  auth: RadiusTarget;
  /** The entry's src-address: the NAS-IP-Address of requests sent to it. */
  srcAddress?: string;
  accountingPort: number;
  options: ExchangeOptions;
}

/** Enabled /radius entries whose service includes `service`, in configuration order. */
export function radiusServersFor(state: RouterState, service: string): RadiusServer[] {
  const caps = state.caps;
  return state
    .table('/radius')
    .list()
    .filter((r) => r.props.disabled !== 'true' && (r.props.service ?? '').split(',').includes(service))
    .map((r) => {
      const p = r.props;
      const src = p['src-address'];
      return {
        ...(src && src !== '0.0.0.0' ? { srcAddress: src } : {}),
        auth: {
          address: p.address ?? '127.0.0.1',
          port: Number(p['authentication-port'] ?? '1812'),
          secret: p.secret ?? '',
          timeoutMs: timeoutMs(p.timeout),
        },
        accountingPort: Number(p['accounting-port'] ?? '1813'),
        options: {
          messageAuthenticator: caps.radiusRequireMessageAuth,
          requireReplyMessageAuthenticator:
            caps.radiusRequireMessageAuth && (p['require-message-auth'] ?? 'yes-for-request-resp') !== 'no',
        },
      };
    });
}

/** /radius timeout: "300ms", "3s", or a bare number of seconds. */
function timeoutMs(text: string | undefined): number {
  if (!text) return 300;
  const seconds = /^\d+$/.test(text) ? Number(text) : parseDuration(text);
  return Math.max(1, Math.round((seconds ?? 0.3) * 1000));
}
