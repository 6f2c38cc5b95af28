// Resellers written from a router's accounts (the takeover): a reseller created with its ledger,
// or movements appended to one. Every function runs in the caller's transaction `trx` (see
// ResellersService): the balance, its ledger lines and the caller's own rows commit together.
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import * as q from './queries.js';
import type { ResellerLedgerTable, ResellersTable } from './tables.js';

/** A reseller as a takeover finds it, locked in the caller's transaction. */
export interface ImportTarget {
  id: string;
  clientId: string;
  /** Integer XOF. */
  balance: number;
  deleted: boolean;
}

/** Who a reseller read from a router account is, as the router kept it. */
export interface ResellerIdentity {
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  commission_rate: number;
  disabled: boolean;
  created_on_router_at: string | null;
}

/** A reseller created from a router account. */
export interface ImportedAccount extends ResellerIdentity {
  username: string;
  /** Integer XOF; the lines written with it must end on it (ledger = balance). */
  balance: number;
  max_batch_size: number;
  max_users_total: number;
  /** Purchases the router recorded (what the reseller bought from the manager). */
  total_sales: number;
  /** The takeover time: creation, update and import dates. */
  at: string;
}

/** A ledger line taken from a router: its own key (`txn_…`, `opening:<serial>`) and date. */
export interface ImportedLine {
  type: 'OPENING' | 'IMPORT';
  amount: number;
  reason: string;
  key: string;
  balanceAfter: number;
  /** When it happened (the ledger is the source for consumption over a period). */
  at: string;
}

/** The reseller of this username (deleted ones included), locked for the rest of `trx`. */
export async function lockByUsername(
  trx: Db,
  clientId: string,
  username: string,
  rowLocks: boolean,
): Promise<ImportTarget | null> {
  const found = await q.findByUsername(trx, clientId, username);
  if (!found) return null;
  const row = (await q.findForUpdate(trx, clientId, found.id, rowLocks)) ?? found;
  return {
    id: row.id,
    clientId: row.client_id,
    balance: Number(row.balance),
    deleted: row.deleted_at !== null,
  };
}

/** Creates the reseller and its lines 1, 2, …; answers its id. */
export async function createImported(
  trx: Db,
  clientId: string,
  account: ImportedAccount,
  lines: readonly ImportedLine[],
): Promise<string> {
  const row: ResellersTable = {
    id: newId(),
    client_id: clientId,
    username: account.username,
    first_name: account.first_name,
    last_name: account.last_name,
    phone: account.phone,
    email: account.email,
    commission_rate: account.commission_rate,
    disabled: account.disabled ? 1 : 0,
    created_on_router_at: account.created_on_router_at,
    password_hash: null,
    balance: account.balance,
    max_batch_size: account.max_batch_size,
    max_users_total: account.max_users_total,
    tickets_issued: 0,
    total_sales: account.total_sales,
    admin_message: null,
    deleted_at: null,
    imported_from_router_at: account.at,
    desktop_allow_login: 0,
    desktop_router_group: null,
    desktop_password_hash: null,
    desktop_updated_at: null,
    created_at: account.at,
    updated_at: account.at,
  };
  await q.insertReseller(trx, row);
  const last = lines.length > 0 ? lines[lines.length - 1]!.balanceAfter : 0;
  // The ledger sums to the balance by construction; anything else is a bug, and rolls back.
  if (last !== account.balance) throw new Error(`import of reseller ${account.username}: ledger ≠ balance`);
  await insertLines(
    trx,
    lines.map((line, i) => ledgerRow(clientId, row.id, line, i + 1)),
  );
  return row.id;
}

/**
 * Appends the lines after the reseller's last one and moves its balance from `target.balance`
 * to the last line's balance; `change.sales` is added to its purchases.
 */
export async function appendImported(
  trx: Db,
  target: ImportTarget,
  lines: readonly ImportedLine[],
  change: { sales: number; updatedAt: string },
): Promise<void> {
  if (lines.length === 0) return;
  const first = (await q.lastLineNo(trx, target.id)) + 1;
  await insertLines(
    trx,
    lines.map((line, i) => ledgerRow(target.clientId, target.id, line, first + i)),
  );
  const next = lines[lines.length - 1]!.balanceAfter;
  const moved = await q.moveBalance(trx, target.id, target.balance, next, {
    tickets: 0,
    sales: change.sales,
    updatedAt: change.updatedAt,
  });
  // The row is locked (or SQLite serialises writers): a miss here is a bug, and rolls back.
  if (!moved) throw new Error(`balance of reseller ${target.id} moved under a lock`);
}

const ledgerRow = (
  clientId: string,
  resellerId: string,
  line: ImportedLine,
  lineNo: number,
): ResellerLedgerTable => ({
  id: newId(),
  client_id: clientId,
  reseller_id: resellerId,
  line_no: lineNo,
  type: line.type,
  amount: line.amount,
  reason: line.reason,
  balance_after: line.balanceAfter,
  idempotency_key: line.key,
  created_at: line.at,
});

async function insertLines(trx: Db, rows: ResellerLedgerTable[]): Promise<void> {
  if (rows.length > 0) await q.insertLedgerLines(trx, rows);
}
