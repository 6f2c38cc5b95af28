export interface ResellersTable {
  id: string;
  client_id: string;
  /** Lowercased, without spaces; unique per tenant, deleted ones included (their tickets keep the name). */
  username: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  password_hash: string | null;
  /** Integer XOF; always equals the sum of this reseller's ledger amounts. */
  balance: number;
  commission_rate: number;
  max_batch_size: number;
  max_users_total: number;
  /** Tickets created in all batches so far (the counter `max_users_total` caps). */
  tickets_issued: number;
  /** Cumulative debits: what the reseller bought from the manager (not customer revenue). */
  total_sales: number;
  admin_message: string | null;
  disabled: number;
  deleted_at: string | null;
  created_on_router_at: string | null;
  imported_from_router_at: string | null;
  desktop_allow_login: number;
  desktop_router_group: string | null;
  desktop_password_hash: string | null;
  desktop_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ResellerTokensTable {
  id: string;
  client_id: string;
  reseller_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export type LedgerType = 'OPENING' | 'TOPUP' | 'BATCH' | 'IMPORT';

export interface ResellerLedgerTable {
  id: string;
  client_id: string;
  reseller_id: string;
  /** 1, 2, 3… per reseller, in the order the lines were written (timestamps can tie). */
  line_no: number;
  type: LedgerType;
  /** Signed integer XOF: positive credits, negative debits. */
  amount: number;
  reason: string | null;
  balance_after: number;
  /** Deduplicates a retried request (`Idempotency-Key`) or an imported movement (`txn_…`). */
  idempotency_key: string;
  created_at: string;
}

export interface ResellersTables {
  resellers: ResellersTable;
  reseller_tokens: ResellerTokensTable;
  reseller_ledger: ResellerLedgerTable;
}
