/** The WAN counters of one router as last read, and its time zone (router days follow it). */
export interface UsageRoutersTable {
  allocation_id: string;
  client_id: string;
  /** IANA name from the router's clock; null until reported (days are then UTC). */
  time_zone: string | null;
  last_at: string | null;
  last_rx_bytes: number | null;
  last_tx_bytes: number | null;
  updated_at: string;
}

/** Bytes through the router's WAN (in plus out) in one UTC hour, filed under the router's day. */
export interface UsageHoursTable {
  allocation_id: string;
  /** Start of the UTC hour, ISO. */
  hour: string;
  client_id: string;
  /** The router's local day (YYYY-MM-DD) of the point that brought the bytes. */
  local_day: string;
  bytes: number;
}

export interface UsageTables {
  usage_routers: UsageRoutersTable;
  usage_hours: UsageHoursTable;
}
