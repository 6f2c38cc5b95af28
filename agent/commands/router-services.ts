// `router.services`: the router's management services as `/ip service` prints them (name, port,
// enabled, certificate), so the controller can open the router's own web, WinBox, API and SSH
// ports to its client through the agent's link. Read only.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';

type RouterServices = CommandOutput<'router.services'>;

export async function readRouterServices(
  router: RouterConnection,
  options: RouterCallOptions = {},
): Promise<RouterServices> {
  const rows = await router.print('/ip/service', {
    ...(options.signal ? { signal: options.signal } : {}),
    proplist: ['name', 'port', 'disabled', 'certificate'],
  });
  return {
    services: rows.flatMap((r) => {
      const port = Number(r.port);
      if (!r.name || !Number.isInteger(port) || port < 1 || port > 65535) return [];
      // RouterOS prints `none` for a service without a certificate
      const certificate = r.certificate?.trim();
      return [
        {
          name: r.name,
          port,
          disabled: parseRouterOsBoolean(r.disabled) === true,
          certificate: certificate && certificate !== 'none' ? certificate : null,
        },
      ];
    }),
  };
}
