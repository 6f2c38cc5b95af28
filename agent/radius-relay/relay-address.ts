// The address the router must send its RADIUS to: the agent as the router sees it. An agent in a
// RouterOS container is its veth address on the router's side; an agent on a LAN box is its LAN
// address towards the router. Both are the source address the host picks to reach the router,
// which a connected UDP socket tells without sending anything.
import { createSocket } from 'node:dgram';

export interface RelayAddressInput {
  /** An operator's explicit setting (NAT, several interfaces): wins over everything. */
  advertise?: string | undefined;
  /** The address the relay is bound to; a wildcard says nothing. */
  host: string;
  /** The router's address as the agent reaches it (its API host). */
  routerHost: string;
}

const WILDCARD = '0.0.0.0';

/** The relay's address as the router sees it; undefined when it cannot be told. */
export async function relayAddressAsRouterSeesIt(
  input: RelayAddressInput,
  sourceTowards: (host: string) => Promise<string | undefined> = sourceAddressTowards,
): Promise<string | undefined> {
  if (input.advertise) return input.advertise;
  if (input.host !== WILDCARD) return input.host;
  return sourceTowards(input.routerHost);
}

/** The local IPv4 address the host's routes pick to reach `host`; undefined when none does. */
export async function sourceAddressTowards(host: string): Promise<string | undefined> {
  const socket = createSocket('udp4');
  try {
    // connect() on a UDP socket only looks the route up: no datagram leaves.
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(9, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const { address } = socket.address();
    return address === WILDCARD ? undefined : address;
  } catch {
    return undefined;
  } finally {
    socket.close();
  }
}
