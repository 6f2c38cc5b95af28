// Resellers in RADIUS mode (docs/api/resellers.md): identity, caps, prepaid balance and its ledger,
// tokens, and the batch rule that debits the balance in the same transaction that creates the tickets.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { DialectCapabilities } from '../../db/capabilities.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { ResellerPrincipal } from '../../http/principal.js';
import { hashPassword } from '../../core/password.js';
import type { ProfilesService, TicketsService, TicketView } from '../tickets/index.js';
import { batchCost } from './cost.js';
import * as q from './queries.js';
import * as imports from './router-accounts.js';
import type { ImportTarget, ImportedAccount, ImportedLine } from './router-accounts.js';
import { TOKEN_VALIDITY_DAYS, hashResellerToken, newResellerToken, TOKEN_PREFIX } from './reseller-token.js';
import type { LedgerType, ResellerLedgerTable, ResellersTable } from './tables.js';

const DAY_MS = 86_400_000;

/** A reseller as it leaves the service: never a password or its hash. */
export interface ResellerView {
  username: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
  balance: number;
  commission_rate: number;
  max_batch_size: number;
  max_users_total: number;
  tickets_issued: number;
  total_sales: number;
  admin_message: string | null;
  disabled: boolean;
  created_on_router_at: string | null;
  imported_from_router_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface LedgerLineView {
  type: LedgerType;
  amount: number;
  reason: string | null;
  balance_after: number;
  created_at: string;
}

export interface NewReseller {
  username: string;
  balance: number;
  commission_rate: number;
  max_batch_size: number;
  max_users_total: number;
  first_name?: string | undefined;
  last_name?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  admin_message?: string | undefined;
  password?: string | undefined;
}

export interface ResellerChanges {
  max_batch_size?: number | undefined;
  max_users_total?: number | undefined;
  commission_rate?: number | undefined;
  disabled?: boolean | undefined;
  admin_message?: string | null | undefined;
}

export const resellerView = (r: ResellersTable): ResellerView => ({
  username: r.username,
  first_name: r.first_name,
  last_name: r.last_name,
  phone: r.phone,
  email: r.email,
  balance: Number(r.balance),
  commission_rate: Number(r.commission_rate),
  max_batch_size: r.max_batch_size,
  max_users_total: r.max_users_total,
  tickets_issued: Number(r.tickets_issued),
  total_sales: Number(r.total_sales),
  admin_message: r.admin_message,
  disabled: r.disabled === 1,
  created_on_router_at: r.created_on_router_at,
  imported_from_router_at: r.imported_from_router_at,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export const ledgerView = (l: ResellerLedgerTable): LedgerLineView => ({
  type: l.type,
  amount: Number(l.amount),
  reason: l.reason,
  balance_after: Number(l.balance_after),
  created_at: l.created_at,
});

const notFound = (username: string) => new AppError('RESELLER_NOT_FOUND', `No reseller named ${username}`);

export class ResellersService {
  constructor(
    private readonly db: Db,
    private readonly caps: DialectCapabilities,
    private readonly clock: Clock,
    private readonly tickets: TicketsService,
    private readonly profiles: ProfilesService,
  ) {}

  async create(clientId: string, input: NewReseller): Promise<ResellerView> {
    const now = iso(this.clock.now());
    const row: ResellersTable = {
      id: newId(),
      client_id: clientId,
      username: input.username,
      first_name: input.first_name ?? null,
      last_name: input.last_name ?? null,
      phone: input.phone ?? null,
      email: input.email ?? null,
      password_hash: input.password ? await hashPassword(input.password) : null,
      balance: input.balance,
      commission_rate: input.commission_rate,
      max_batch_size: input.max_batch_size,
      max_users_total: input.max_users_total,
      tickets_issued: 0,
      total_sales: 0,
      admin_message: input.admin_message ?? null,
      disabled: 0,
      deleted_at: null,
      created_on_router_at: null,
      imported_from_router_at: null,
      desktop_allow_login: 0,
      desktop_router_group: null,
      desktop_password_hash: null,
      desktop_updated_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        await q.insertReseller(trx, row);
        // An opening balance is a credit like any other: it gets its ledger line, so ledger = balance.
        if (row.balance > 0) {
          await this.#writeLine(
            trx,
            row,
            'OPENING',
            row.balance,
            'opening balance',
            row.balance,
            newId(),
            now,
          );
        }
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new AppError('RESELLER_ALREADY_EXISTS', `A reseller named ${input.username} already exists`);
      }
      throw err;
    }
    return resellerView(row);
  }

  async list(clientId: string, limit: number, offset: number): Promise<ResellerView[]> {
    return (await q.listResellers(this.db, clientId, limit, offset)).map(resellerView);
  }

  /** The reseller behind a token, with its ten latest ledger lines. */
  async self(
    principal: ResellerPrincipal,
  ): Promise<{ reseller: ResellerView; transactions: LedgerLineView[] }> {
    const row = await this.#live(principal.tenantId, principal.username);
    const lines = await q.listLedger(this.db, row.id, 10, 0);
    return { reseller: resellerView(row), transactions: lines.map(ledgerView) };
  }

  async get(clientId: string, username: string): Promise<ResellerView> {
    return resellerView(await this.#live(clientId, username));
  }

  async update(clientId: string, username: string, changes: ResellerChanges): Promise<ResellerView> {
    const row = await this.#live(clientId, username);
    const set: Partial<ResellersTable> = { updated_at: iso(this.clock.now()) };
    if (changes.max_batch_size !== undefined) set.max_batch_size = changes.max_batch_size;
    if (changes.max_users_total !== undefined) set.max_users_total = changes.max_users_total;
    if (changes.commission_rate !== undefined) set.commission_rate = changes.commission_rate;
    if (changes.disabled !== undefined) set.disabled = changes.disabled ? 1 : 0;
    if (changes.admin_message !== undefined) set.admin_message = changes.admin_message;
    await q.updateReseller(this.db, row.id, set);
    return resellerView({ ...row, ...set });
  }

  /** Soft deletion: the row stays so its ledger and sold tickets keep naming it; the name stays taken. */
  async remove(clientId: string, username: string): Promise<void> {
    const row = await this.#live(clientId, username);
    const now = iso(this.clock.now());
    await q.updateReseller(this.db, row.id, { deleted_at: now, updated_at: now });
  }

  async issueToken(clientId: string, username: string): Promise<{ token: string; expires_in_days: number }> {
    const row = await this.#live(clientId, username);
    if (row.disabled)
      throw new AppError('RESELLER_DISABLED', `Reseller ${username} is suspended; no token is issued`);
    const token = newResellerToken();
    const now = this.clock.now();
    await q.insertToken(this.db, {
      id: newId(),
      client_id: clientId,
      reseller_id: row.id,
      token_hash: hashResellerToken(token),
      created_at: iso(now),
      expires_at: iso(new Date(now.getTime() + TOKEN_VALIDITY_DAYS * DAY_MS)),
    });
    return { token, expires_in_days: TOKEN_VALIDITY_DAYS };
  }

  /** Bearer strategy: a reseller token that exists, is unexpired and whose reseller is not deleted. */
  readonly authenticate = async (token: string): Promise<ResellerPrincipal | null> => {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const found = await q.findToken(this.db, hashResellerToken(token));
    if (!found || found.deleted_at || found.expires_at <= iso(this.clock.now())) return null;
    return {
      type: 'reseller',
      kind: 'reseller',
      subjectId: found.reseller_id,
      resellerId: found.reseller_id,
      username: found.username,
      tenantId: found.client_id,
    };
  };

  /**
   * The only credit path. With an idempotency key, a retried top-up returns the first one's line
   * instead of crediting twice.
   */
  async topup(
    clientId: string,
    username: string,
    amount: number,
    reason: string | undefined,
    idempotencyKey?: string,
  ): Promise<{ reseller: ResellerView; transaction: LedgerLineView; replayed: boolean }> {
    const found = await this.#live(clientId, username);
    return this.db.transaction().execute(async (trx) => {
      const row = await this.#lock(trx, clientId, found.id);
      if (idempotencyKey) {
        const previous = await q.findLedgerByKey(trx, row.id, `topup:${idempotencyKey}`);
        if (previous) {
          if (previous.type !== 'TOPUP' || Number(previous.amount) !== amount) {
            throw new AppError(
              'IDEMPOTENCY_KEY_REUSED',
              'This Idempotency-Key was used for another operation',
            );
          }
          return { reseller: resellerView(row), transaction: ledgerView(previous), replayed: true };
        }
      }
      const now = iso(this.clock.now());
      const next = Number(row.balance) + amount;
      await this.#setBalance(trx, row, next, { tickets: 0, sales: 0, updatedAt: now });
      const line = await this.#writeLine(
        trx,
        row,
        'TOPUP',
        amount,
        reason ?? 'top-up',
        next,
        idempotencyKey ? `topup:${idempotencyKey}` : newId(),
        now,
      );
      return {
        reseller: resellerView({ ...row, balance: next, updated_at: now }),
        transaction: ledgerView(line),
        replayed: false,
      };
    });
  }

  async transactions(
    clientId: string,
    username: string,
    limit: number,
    offset: number,
  ): Promise<LedgerLineView[]> {
    const row = await this.#live(clientId, username);
    return (await q.listLedger(this.db, row.id, limit, offset)).map(ledgerView);
  }

  /** Records intent only: the router account is provisioned by the mobile app from the LAN. */
  async setDesktopTool(
    clientId: string,
    username: string,
    input: {
      allow_desktop_login: boolean;
      router_group?: string | undefined;
      desktop_password?: string | undefined;
    },
  ): Promise<{
    allow_desktop_login: boolean;
    router_group: string | null;
    desktop_password_set: boolean;
    updated_at: string;
  }> {
    const row = await this.#live(clientId, username);
    const now = iso(this.clock.now());
    const changes: Partial<ResellersTable> = {
      desktop_allow_login: input.allow_desktop_login ? 1 : 0,
      desktop_router_group: input.router_group ?? row.desktop_router_group,
      desktop_updated_at: now,
      updated_at: now,
    };
    if (input.desktop_password) changes.desktop_password_hash = await hashPassword(input.desktop_password);
    await q.updateReseller(this.db, row.id, changes);
    return {
      allow_desktop_login: input.allow_desktop_login,
      router_group: changes.desktop_router_group ?? null,
      desktop_password_set: Boolean(changes.desktop_password_hash ?? row.desktop_password_hash),
      updated_at: now,
    };
  }

  /**
   * A reseller's batch, checks and acts in this order: (1) batch size, (2) cumulative cap, (3) balance,
   * (4) tickets created with `reseller_name`, (5) balance debited and a ledger line written — all in
   * one transaction with the reseller row locked, so concurrent batches can neither overdraw nor lose
   * a debit, and tickets never exist without their debit (or the reverse).
   */
  async createBatch(
    principal: ResellerPrincipal,
    input: { profile_id: string; quantity: number; comment?: string | undefined },
  ): Promise<{ tickets: TicketView[]; cost: number; balance: number; transaction: LedgerLineView }> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.#lock(trx, principal.tenantId, principal.resellerId);
      if (row.deleted_at) throw new AppError('UNAUTHENTICATED', 'This reseller no longer exists');
      if (row.disabled)
        throw new AppError('RESELLER_DISABLED', 'This reseller account is suspended; batches are refused');
      if (input.quantity > row.max_batch_size) {
        throw new AppError(
          'BATCH_TOO_LARGE',
          `A batch may hold at most ${row.max_batch_size} tickets; ${input.quantity} asked`,
          { details: { max_batch_size: row.max_batch_size, quantity: input.quantity } },
        );
      }
      const issued = Number(row.tickets_issued);
      if (issued + input.quantity > row.max_users_total) {
        throw new AppError(
          'RESELLER_TOTAL_EXCEEDED',
          `This batch would bring the total to ${issued + input.quantity} tickets; the cap is ${row.max_users_total}`,
          {
            details: {
              max_users_total: row.max_users_total,
              tickets_issued: issued,
              quantity: input.quantity,
            },
          },
        );
      }
      const profile = await this.profiles.findProfile(principal.tenantId, input.profile_id, trx);
      if (!profile) throw new AppError('PROFILE_NOT_FOUND', `No profile ${input.profile_id}`);
      if (profile.price === null) {
        throw new AppError(
          'PROFILE_PRICE_MISSING',
          `Profile ${profile.name} has no price; the manager must set one`,
        );
      }
      const cost = batchCost(profile.price, Number(row.commission_rate), input.quantity);
      const balance = Number(row.balance);
      if (balance < cost) {
        throw new AppError(
          'INSUFFICIENT_BALANCE',
          `Insufficient balance: this batch costs ${cost} XOF and the balance is ${balance} XOF`,
          { details: { required: cost, balance, missing: cost - balance } },
        );
      }
      const tickets = await this.tickets.createTickets(
        principal.tenantId,
        {
          profileId: profile.id,
          profileRef: input.profile_id,
          quantity: input.quantity,
          comment: input.comment ?? null,
          resellerName: row.username,
        },
        trx,
      );
      const now = iso(this.clock.now());
      const next = balance - cost;
      await this.#setBalance(trx, row, next, { tickets: input.quantity, sales: cost, updatedAt: now });
      const line = await this.#writeLine(
        trx,
        row,
        'BATCH',
        -cost,
        `batch of ${input.quantity} ${profile.name}`,
        next,
        newId(),
        now,
      );
      return { tickets, cost, balance: next, transaction: ledgerView(line) };
    });
  }

  /** Tickets of the tenant; a reseller token sees only its own (`reseller` forced by the route). */
  listVouchers(
    clientId: string,
    filter: {
      reseller?: string | undefined;
      status?: TicketView['status'] | undefined;
      limit: number;
      offset: number;
    },
  ) {
    return this.tickets.listTickets(clientId, {
      limit: filter.limit,
      offset: filter.offset,
      ...(filter.reseller !== undefined ? { reseller: filter.reseller } : {}),
      ...(filter.status !== undefined ? { status: filter.status } : {}),
    });
  }

  // ---- accounts taken over from a router ---------------------------------------------------
  // These run in the caller's transaction `trx` and never open one: the caller begins and ends it,
  // so the balance, its ledger lines and the caller's own rows (the takeover's router link) commit
  // together or not at all. A reseller is first locked with lockForImport in that transaction.

  /** The reseller of this username (deleted ones included), locked for the rest of `trx`; null when none. */
  lockForImport(trx: Db, clientId: string, username: string): Promise<ImportTarget | null> {
    return imports.lockByUsername(trx, clientId, username, this.caps.rowLocks);
  }

  /** Creates a reseller with its ledger lines 1, 2, …, which end on its balance. Answers its id. */
  createImported(
    trx: Db,
    clientId: string,
    account: ImportedAccount,
    lines: readonly ImportedLine[],
  ): Promise<string> {
    return imports.createImported(trx, clientId, account, lines);
  }

  /** Which of `keys` the reseller's ledger already holds (movements imported before). */
  importedKeys(trx: Db, resellerId: string, keys: readonly string[]): Promise<Set<string>> {
    return q.ledgerKeys(trx, resellerId, keys);
  }

  /**
   * Appends lines to a locked reseller's ledger and moves its balance to the last line's; `sales`
   * is added to its purchases, `updatedAt` the caller's time of the change.
   */
  appendImported(
    trx: Db,
    target: ImportTarget,
    lines: readonly ImportedLine[],
    change: { sales: number; updatedAt: string },
  ): Promise<void> {
    return imports.appendImported(trx, target, lines, change);
  }

  /** Which of `usernames` name a reseller of the tenant (deleted ones included: the name is taken). */
  existingUsernames(clientId: string, usernames: readonly string[]): Promise<Set<string>> {
    return q.existingUsernames(this.db, clientId, usernames);
  }

  /** For invariant checks: the ledger sum and the balance of one reseller. */
  async ledgerCheck(clientId: string, username: string): Promise<{ balance: number; ledger: number }> {
    const row = await this.#any(clientId, username);
    return { balance: Number(row.balance), ledger: await q.ledgerSum(this.db, row.id) };
  }

  async #any(clientId: string, username: string): Promise<ResellersTable> {
    const row = await q.findByUsername(this.db, clientId, username);
    if (!row) throw notFound(username);
    return row;
  }

  async #live(clientId: string, username: string): Promise<ResellersTable> {
    const row = await this.#any(clientId, username);
    if (row.deleted_at) throw notFound(username);
    return row;
  }

  async #lock(trx: Db, clientId: string, id: string): Promise<ResellersTable> {
    const row = await q.findForUpdate(trx, clientId, id, this.caps.rowLocks);
    if (!row) throw new AppError('RESELLER_NOT_FOUND', 'No such reseller');
    return row;
  }

  async #setBalance(
    trx: Db,
    row: ResellersTable,
    next: number,
    extra: { tickets: number; sales: number; updatedAt: string },
  ): Promise<void> {
    if (next < 0) throw new Error(`balance of ${row.id} would go below zero`);
    // The row is locked (or the database serialises writers), so this can only fail on a bug.
    if (!(await q.moveBalance(trx, row.id, Number(row.balance), next, extra))) {
      throw new Error(`balance of reseller ${row.id} moved under a lock`);
    }
  }

  async #writeLine(
    trx: Db,
    row: ResellersTable,
    type: LedgerType,
    amount: number,
    reason: string | null,
    balanceAfter: number,
    key: string,
    now: string,
  ): Promise<ResellerLedgerTable> {
    const line: ResellerLedgerTable = {
      id: newId(),
      client_id: row.client_id,
      reseller_id: row.id,
      line_no: (await q.lastLineNo(trx, row.id)) + 1,
      type,
      amount,
      reason,
      balance_after: balanceAfter,
      idempotency_key: key,
      created_at: now,
    };
    await q.insertLedgerLine(trx, line);
    return line;
  }
}
