// `radius.status`: what the controller's verification needs to know about a router's RADIUS set-up,
// read only: the `/radius` entries the provisioning wrote (comment `ticketnet:<nas id>`), the
// hotspot server profiles' RADIUS flags, and whether CoA/Disconnect are accepted. The secret never
// leaves the router: only its SHA-256 is reported, which is enough to compare.
import { createHash } from 'node:crypto';
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean, parseRouterOsInteger } from '../routeros/ros-values.js';

type RadiusStatus = CommandOutput<'radius.status'>;

export const TICKETNET_COMMENT_PREFIX = 'ticketnet:';

const port = (text: string | undefined): number | null => {
  const n = parseRouterOsInteger(text);
  return n !== undefined && n <= 65535 ? n : null;
};

export async function readRadiusStatus(
  router: RouterConnection,
  options: { signal?: AbortSignal } = {},
): Promise<RadiusStatus> {
  const call = options.signal ? { signal: options.signal } : {};
  const entries = await router.print('/radius', call);
  const profiles = await router.print('/ip/hotspot/profile', {
    ...call,
    proplist: ['name', 'use-radius', 'radius-accounting', 'radius-interim-update'],
  });
  const servers = await router.print('/ip/hotspot', { ...call, proplist: ['name', 'profile', 'disabled'] });
  const incoming = await router.print('/radius/incoming', call);
  const used = new Set(
    servers.filter((s) => parseRouterOsBoolean(s.disabled) !== true).map((s) => s.profile ?? 'default'),
  );
  return {
    radius: entries
      .filter((e) => (e.comment ?? '').startsWith(TICKETNET_COMMENT_PREFIX))
      .map((e) => ({
        address: e.address ?? '',
        service: (e.service ?? '').split(',').filter((s) => s !== ''),
        secret_sha256: createHash('sha256')
          .update(e.secret ?? '', 'utf8')
          .digest('hex'),
        authentication_port: port(e['authentication-port']),
        accounting_port: port(e['accounting-port']),
        comment: e.comment ?? '',
        disabled: parseRouterOsBoolean(e.disabled) ?? false,
      })),
    hotspot_profiles: profiles
      .filter((p) => p.name)
      .map((p) => ({
        name: p.name!,
        use_radius: parseRouterOsBoolean(p['use-radius']) ?? false,
        // RouterOS defaults radius-accounting to yes; an absent flag is its default.
        radius_accounting: parseRouterOsBoolean(p['radius-accounting']) ?? true,
        ...(p['radius-interim-update'] ? { radius_interim_update: p['radius-interim-update'] } : {}),
        in_use: used.has(p.name!),
      })),
    incoming_accept: parseRouterOsBoolean(incoming[0]?.accept) ?? false,
  };
}
