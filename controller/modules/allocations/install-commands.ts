// The commands shown with a fresh enrolment code: one list for an agent on a Linux host of the
// LAN, one for the agent as a container on the router itself (RouterOS 7 with the container package).
import { randomBytes } from 'node:crypto';

export interface InstallCommands {
  linux: string[];
  routeros_container: string[];
}

/** Image of the agent container; the packaging recipe publishes it under this name. */
export const AGENT_IMAGE = 'ghcr.io/ticketnet/agent:latest';
// Container-side link: a /30 of its own so it collides with no LAN plan we know of.
const ROUTER_SIDE = '172.31.255.1';
const AGENT_SIDE = '172.31.255.2';
const MARK = 'ticketnet:agent';

/**
 * Builds both lists. The RouterOS list creates an API user for the agent that may log in from the
 * container's address only; its password is random, appears in these commands once and is never stored.
 */
export function installCommands(controllerUrl: string, code: string): InstallCommands {
  const routerPassword = randomBytes(18).toString('base64url');
  const env = (key: string, value: string) =>
    `/container/envs/add name=ticketnet key=${key} value="${value}" comment=${MARK}`;
  return {
    linux: [
      `ticketnet-agent enrol --controller ${controllerUrl} --code ${code}`,
      'sudo systemctl enable --now ticketnet-agent',
    ],
    routeros_container: [
      `/interface/veth/add name=veth-ticketnet address=${AGENT_SIDE}/30 gateway=${ROUTER_SIDE} comment=${MARK}`,
      `/ip/address/add address=${ROUTER_SIDE}/30 interface=veth-ticketnet comment=${MARK}`,
      `/ip/firewall/nat/add chain=srcnat src-address=${AGENT_SIDE}/32 action=masquerade comment=${MARK}`,
      `/user/group/add name=ticketnet-agent policy=read,write,policy,test,sensitive,api,ftp comment=${MARK}`,
      `/user/add name=ticketnet-agent group=ticketnet-agent address=${AGENT_SIDE}/32 password="${routerPassword}" comment=${MARK}`,
      env('TICKETNET_CONTROLLER_URL', controllerUrl),
      env('TICKETNET_ENROL_CODE', code),
      env('TICKETNET_ROUTER_HOST', ROUTER_SIDE),
      env('TICKETNET_ROUTER_USER', 'ticketnet-agent'),
      env('TICKETNET_ROUTER_PASSWORD', routerPassword),
      '/container/config/set registry-url=https://ghcr.io tmpdir=ticketnet-tmp',
      `/container/add remote-image=${AGENT_IMAGE} interface=veth-ticketnet root-dir=ticketnet-agent envlist=ticketnet start-on-boot=yes logging=yes comment=${MARK}`,
      `/container/start [find comment="${MARK}"]`,
    ],
  };
}
