// Which of a router's management services its client may reach through `{vpn_host}` ports, and how
// the topology writes them (docs/api/equipment.md, Web access). Pure rules, tested by table.

/** A service as the agent read it from the router's `/ip service`. */
export interface RouterService {
  name: string;
  port: number;
  disabled: boolean;
  certificate: string | null;
}

export type WebAccessField = 'web_ui' | 'desktop_tool' | 'api' | 'ssh';

/** One port to open: what it shows as, and the router's real port behind it. */
export interface ServiceTarget {
  field: WebAccessField;
  routerPort: number;
  /** The web UI's scheme, from the service that serves it. */
  scheme?: 'http' | 'https';
}

export interface WebAccess {
  web_ui: string | null;
  desktop_tool: string | null;
  api: string | null;
  ssh: string | null;
  reachable: boolean;
}

const live = (services: readonly RouterService[], name: string) =>
  services.find((s) => s.name === name && !s.disabled);

/**
 * The web UI is the router's plain `www` service when it is on (http, on its real port, 80 by
 * default), else `www-ssl` when it is on with a certificate (https; without one RouterOS serves
 * nothing there): the scheme follows the service, never forced to https. WinBox, the API and SSH
 * are their services of the same name. A service that is off gets no port.
 */
export function webAccessTargets(services: readonly RouterService[]): ServiceTarget[] {
  const targets: ServiceTarget[] = [];
  const www = live(services, 'www');
  const wwwSsl = live(services, 'www-ssl');
  if (www) targets.push({ field: 'web_ui', routerPort: www.port, scheme: 'http' });
  else if (wwwSsl?.certificate) targets.push({ field: 'web_ui', routerPort: wwwSsl.port, scheme: 'https' });
  for (const [field, name] of [
    ['desktop_tool', 'winbox'],
    ['api', 'api'],
    ['ssh', 'ssh'],
  ] as const) {
    const service = live(services, name);
    if (service) targets.push({ field, routerPort: service.port });
  }
  return targets;
}

/** `{vpn_host}:port` per opened port (the web UI as a URL with its scheme); null where none is open. */
export function webAccessView(
  host: string,
  opened: readonly { field: WebAccessField; publicPort: number; scheme?: 'http' | 'https' | undefined }[],
  reachable: boolean,
): WebAccess {
  const view: WebAccess = { web_ui: null, desktop_tool: null, api: null, ssh: null, reachable };
  // an IPv6 literal takes brackets before a port
  const at = host.includes(':') ? `[${host}]` : host;
  for (const port of opened) {
    const address = `${at}:${port.publicPort}`;
    view[port.field] = port.field === 'web_ui' ? `${port.scheme ?? 'http'}://${address}` : address;
  }
  return view;
}
