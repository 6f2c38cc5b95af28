/** VENTE is a sale (money); CONNEXION a reconnection of a sold ticket (usage only, never money). */
export type SalesRecordType = 'VENTE' | 'CONNEXION';
export const SALES_RECORD_TYPES: readonly SalesRecordType[] = ['VENTE', 'CONNEXION'];

/** One event of a router's local sales history, repatriated (rules: `docs/decisions.md`). */
export interface SalesRecordsTable {
  id: string;
  client_id: string;
  allocation_id: string;
  /** sha256 of the raw entry (name and owner): the same event imported twice is one row. */
  entry_hash: string;
  /** RouterOS id of the script entry (`*1A`) when imported, and its number for ordering. */
  script_id: string;
  script_no: number;
  type: SalesRecordType;
  /** Date and time of a sale as the router wrote them (router wall clock, stored with Z); null when lost. */
  sold_at: string | null;
  /** A reconnection's expiry, its last field. */
  expires_at: string | null;
  /** `YYYY-MM`: the sale's month, or the app's month tag for a reconnection; null when unknown. */
  month: string | null;
  voucher_code: string;
  /** Integer XOF; null when the router's price text is unreadable. */
  price_xof: number | null;
  client_ip: string | null;
  client_mac: string | null;
  duration_label: string | null;
  profile_name: string | null;
  comment: string | null;
  /** From a `vendu par <name>` comment, lowercased without spaces as reseller names are. */
  reseller_name: string | null;
  /** The entry as the router held it, so the rules can be applied again later. */
  raw_name: string;
  owner: string | null;
  imported_at: string;
}

export interface SalesTables {
  sales_records: SalesRecordsTable;
}
