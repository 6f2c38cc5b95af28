/** Path of the agent link on the controller's HTTP port. */
export const AGENT_LINK_PATH = '/agent/v1';

/**
 * The websocket URL of the agent link for a controller base URL as an operator types it:
 * `https://ctl.example.com` → `wss://ctl.example.com/agent/v1` (http → ws, https → wss; a URL
 * already ending in `/agent/v1` is kept).
 * @throws TypeError for a URL that is not http(s) or ws(s), or carries credentials.
 */
export function agentLinkUrl(controllerUrl: string): string {
  let url: URL;
  try {
    url = new URL(controllerUrl.trim());
  } catch {
    throw new TypeError(`not a URL: ${controllerUrl}`);
  }
  const schemes: Record<string, string> = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' };
  const scheme = schemes[url.protocol];
  if (scheme === undefined) throw new TypeError(`controller URL must be http(s) or ws(s): ${controllerUrl}`);
  // Credentials in the URL would end up in identity.json and logs; the link authenticates with keys.
  if (url.username !== '' || url.password !== '')
    throw new TypeError('controller URL must not carry credentials');
  url.protocol = scheme;
  const base = url.pathname.replace(/\/+$/, '');
  url.pathname = base.endsWith(AGENT_LINK_PATH) ? base : `${base}${AGENT_LINK_PATH}`;
  url.hash = '';
  return url.toString();
}

/** Base URL as stored in identity.json: trimmed, no trailing slash, no link path. */
export function normaliseControllerUrl(controllerUrl: string): string {
  const link = new URL(agentLinkUrl(controllerUrl));
  link.protocol = link.protocol === 'wss:' ? 'https:' : 'http:';
  link.pathname = link.pathname.slice(0, -AGENT_LINK_PATH.length) || '/';
  return link.toString().replace(/\/$/, '');
}
