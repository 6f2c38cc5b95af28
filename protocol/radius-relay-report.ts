import { z } from 'zod';

/** The member of a `facts` report's data that describes the agent's RADIUS relay. */
export const RADIUS_RELAY_FACT = 'radius_relay';

const port = z.int().min(1).max(65535).nullable();

/**
 * Where the agent's RADIUS relay takes the router's RADIUS: `address` is the agent as the router
 * sees it (the router sends RADIUS there), the ports are those the relay listens on (null: that
 * service is not relayed). The report carries null instead when the agent relays no RADIUS.
 */
export const RADIUS_RELAY_REPORT_SCHEMA = z.object({
  address: z.ipv4(),
  auth_port: port,
  acct_port: port,
});

export type RadiusRelayReport = z.output<typeof RADIUS_RELAY_REPORT_SCHEMA>;
