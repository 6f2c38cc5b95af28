// The ticket shop's tables: the store configuration, the catalogue (pushed and router-found
// entries), the stock of pre-made tickets, the last router read, and the shop wallet with its
// ledger, sales, daily totals and withdrawals. Money is integer XOF; booleans 0/1; times ISO text.

/** Where a catalogue entry comes from: pushed by the app, or found on the router by a sync. */
export type ShopProfileOrigin = 'APP' | 'ROUTER';

/** One store per tenant: what the shop shows and how it is paid. */
export interface ShopStoresTable {
  client_id: string;
  display_name: string | null;
  logo_url: string | null;
  /** URL-safe, unique over all tenants; null until chosen. */
  store_slug: string | null;
  /** JSON of `branding`, `plans` and `store_settings` (the merchant key left out). */
  config_json: string;
  /** The merchant key, sealed for its tenant (core/secret-box.ts); never stored nor answered in clear. */
  merchant_key_sealed: string | null;
  created_at: string;
  updated_at: string;
}

/** One catalogue entry of a tenant: a hotspot profile the shop may sell, keyed by its exact name. */
export interface ShopProfilesTable {
  client_id: string;
  name: string;
  origin: ShopProfileOrigin;
  /** APP: the pushed override (null: the derived price applies). ROUTER: the derived price. */
  price_xof: number | null;
  data_limit: string | null;
  time_limit: string | null;
  validity: string | null;
  display_name: string | null;
  is_active: number;
  updated_at: string;
}

/** A ticket made in advance for a catalogue entry, sold at most once. */
export interface ShopStockTable {
  id: string;
  client_id: string;
  profile_name: string;
  /** The ticket's code in the ticket store. */
  ticket_code: string;
  created_at: string;
  /** The sale that took it; null while in stock. */
  sale_reference: string | null;
  sold_at: string | null;
}

/** The profiles the shop's router answered at its last read, as RouterOS names them. */
export interface ShopRouterReadsTable {
  client_id: string;
  allocation_id: string;
  /** JSON array of `{name, "rate-limit", …}`. */
  profiles_json: string;
  read_at: string;
}

export type Collector = 'PLATFORM' | 'MERCHANT';

/** The shop wallet of a tenant: what the platform collected and owes, and the sales totals. */
export interface ShopWalletsTable {
  client_id: string;
  /** Platform-collected money the seller may withdraw; always the sum of the ledger. */
  available_xof: number;
  /** Money of accepted withdrawals not paid out yet. */
  pending_xof: number;
  sales_count: number;
  gross_xof: number;
  platform_xof: number;
  merchant_xof: number;
  withdrawn_xof: number;
  /** Who collected the latest sale; null before any. */
  last_collected_by: Collector | null;
  payout_provider: string | null;
  payout_dashboard_url: string | null;
  /** Administrator freeze: 0 refuses every withdrawal. */
  withdrawals_enabled: number;
  updated_at: string;
}

/** One change of a wallet's available balance. */
export interface ShopLedgerTable {
  id: string;
  client_id: string;
  type: 'SALE' | 'WITHDRAWAL';
  /** Signed: credit positive, debit negative. */
  amount: number;
  balance_after: number;
  /** `sale:<reference>` or `withdrawal:<Idempotency-Key>`: a replay never writes a second line. */
  idempotency_key: string;
  created_at: string;
}

/** One successful sale of the shop. */
export interface ShopSalesTable {
  id: string;
  client_id: string;
  /** The payment's reference: one sale per reference and tenant. */
  reference: string;
  amount_xof: number;
  collected_by: Collector;
  provider: string | null;
  profile_name: string | null;
  ticket_code: string | null;
  sold_at: string;
}

/** Sales and withdrawals of a tenant summed per UTC day, kept in the same transaction as each. */
export interface ShopDailyTotalsTable {
  client_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  sales_count: number;
  gross_xof: number;
  platform_xof: number;
  merchant_xof: number;
  withdrawn_xof: number;
}

export type WithdrawalStatus = 'PENDING';

export interface ShopWithdrawalsTable {
  id: string;
  client_id: string;
  idempotency_key: string;
  amount_xof: number;
  status: WithdrawalStatus;
  requested_by: string;
  requested_at: string;
}

export interface ShopTables {
  shop_stores: ShopStoresTable;
  shop_profiles: ShopProfilesTable;
  shop_stock: ShopStockTable;
  shop_router_reads: ShopRouterReadsTable;
  shop_wallets: ShopWalletsTable;
  shop_ledger: ShopLedgerTable;
  shop_sales: ShopSalesTable;
  shop_daily_totals: ShopDailyTotalsTable;
  shop_withdrawals: ShopWithdrawalsTable;
}
