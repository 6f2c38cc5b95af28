// What an allocation's views show of its agent's link. The link is the hub's (it holds the sockets
// and writes the link rows); allocations only read it, through this interface the hub fills.
export type LinkState = 'CONNECTED' | 'DISCONNECTED';

/** The link of one allocation, as its owner last recorded it. */
export interface LinkFacts {
  link_state: LinkState;
  last_seen_at: string | null;
  /** The version the agent announced on its latest handshake. */
  agent_version: string | null;
}

export interface LinkStateReader {
  /** The links of these allocations; an allocation whose agent never linked is absent. */
  linksOf(allocationIds: readonly string[]): Promise<Map<string, LinkFacts>>;
}

/** An allocation whose agent never linked. */
export const NO_LINK: LinkFacts = { link_state: 'DISCONNECTED', last_seen_at: null, agent_version: null };
