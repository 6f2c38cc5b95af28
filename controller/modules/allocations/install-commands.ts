// The commands shown with a fresh enrolment code: one list for an agent on a Linux host of the
// LAN, one for the agent as a container on the router itself (RouterOS 7 with the container package).

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
const AGENT_USER = 'ticketnet-agent';
/** Letters and digits only: the password needs no quoting anywhere it is written. */
const PASSWORD_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 32 characters of 62: about 190 bits. */
const PASSWORD_LENGTH = 32;
/**
 * The envs list the container reads. The list is named by `name=` on RouterOS 7.4 to 7.19
 * (7.20 renamed it `list=`): the commands target the 7.4..7.19 menu.
 */
const ENVS_ADD = '/container/envs/add name=ticketnet';

/**
 * Builds both lists. The RouterOS list creates an API user for the agent that may log in from the
 * container's address only. Its password is drawn by the router itself (`:rndstr`) and written
 * straight into the container's environment in the same block, so it never leaves the router:
 * neither these commands, the controller's database nor its logs ever hold it.
 */
export function installCommands(controllerUrl: string, code: string): InstallCommands {
  const env = (key: string, value: string) => `${ENVS_ADD} key=${key} value="${value}" comment=${MARK}`;
  return {
    linux: [
      `ticketnet-agent enrol --controller ${controllerUrl} --code ${code}`,
      'sudo systemctl enable --now ticketnet-agent',
    ],
    routeros_container: [
      `/interface/veth/add name=veth-ticketnet address=${AGENT_SIDE}/30 gateway=${ROUTER_SIDE} comment=${MARK}`,
      `/ip/address/add address=${ROUTER_SIDE}/30 interface=veth-ticketnet comment=${MARK}`,
      `/ip/firewall/nat/add chain=srcnat src-address=${AGENT_SIDE}/32 action=masquerade comment=${MARK}`,
      `/user/group/add name=${AGENT_USER} policy=read,write,policy,test,sensitive,api,ftp comment=${MARK}`,
      // one block: a :local lives only as long as the line that declares it
      `{ :local pw [:rndstr length=${PASSWORD_LENGTH} from="${PASSWORD_CHARS}"]; ` +
        `/user/add name=${AGENT_USER} group=${AGENT_USER} address=${AGENT_SIDE}/32 password=$pw comment=${MARK}; ` +
        `${ENVS_ADD} key=TICKETNET_ROUTER_PASSWORD value=$pw comment=${MARK} }`,
      env('TICKETNET_CONTROLLER_URL', controllerUrl),
      env('TICKETNET_ENROL_CODE', code),
      env('TICKETNET_ROUTER_HOST', ROUTER_SIDE),
      env('TICKETNET_ROUTER_USER', AGENT_USER),
      '/container/config/set registry-url=https://ghcr.io tmpdir=ticketnet-tmp',
      `/container/add remote-image=${AGENT_IMAGE} interface=veth-ticketnet root-dir=ticketnet-agent envlist=ticketnet start-on-boot=yes logging=yes comment=${MARK}`,
      `/container/start [find comment="${MARK}"]`,
    ],
  };
}
