/**
 * A reseller taken over from one router: created from that router's account, its opening balance
 * and movements imported. Its presence is what lets a replay from the same router add movements the
 * router recorded since; a reseller without one (created centrally, or from another router) is never
 * merged with a router's history.
 */
export interface ResellerRouterLinksTable {
  id: string;
  client_id: string;
  reseller_id: string;
  /** Serial of the router read (licence id on a CHR), as the agent reported it. */
  router_serial: string;
  /** The allocation the takeover ran through (a router may later move to another one). */
  allocation_id: string;
  /** The account name as typed on the router (`FATOU `), before normalisation. */
  router_name: string;
  /** The router's balance at the takeover, integer XOF. */
  router_balance: number;
  /** Router balance minus the kept movements: what the lost older movements left. */
  opening_amount: number;
  /** Movements written at the takeover (later replays add to the ledger, not here). */
  movements_imported: number;
  taken_over_at: string;
}

export interface TakeoverTables {
  reseller_router_links: ResellerRouterLinksTable;
}
