import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { AccountPrincipal } from '../../http/principal.js';
import type { JwtIssuer } from './jwt.js';
import { decoyHash, hashPassword, passwordWeakness, verifyPassword } from '../../core/password.js';
import * as q from './queries.js';
import type { AccountKind, AccountsTable } from './tables.js';

/** An account as it leaves the service: never the hash. */
export interface AccountView {
  id: string;
  email: string;
  name: string;
  kind: AccountKind;
  created_at: string;
}

export interface NewAccount {
  email: string;
  password: string;
  name: string;
  kind: AccountKind;
}

const view = (a: AccountsTable): AccountView => ({
  id: a.id,
  email: a.email,
  name: a.name,
  kind: a.kind,
  created_at: a.created_at,
});

export class AccountsService {
  readonly #findById: ReturnType<typeof q.findByIdStatement>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly jwt: JwtIssuer,
  ) {
    this.#findById = q.findByIdStatement(db);
  }

  /** Creates an account (any kind; the HTTP route limits kinds, the CLI creates admins). */
  async create(input: NewAccount): Promise<AccountView> {
    const weakness = passwordWeakness(input.password);
    if (weakness) throw new AppError('WEAK_PASSWORD', weakness);
    const email = input.email.trim().toLowerCase();
    if (await q.findByEmail(this.db, email)) {
      throw new AppError('EMAIL_ALREADY_EXISTS', 'An account already uses this e-mail');
    }
    const row: AccountsTable = {
      id: newId(),
      email,
      password_hash: await hashPassword(input.password),
      name: input.name.trim(),
      kind: input.kind,
      created_at: iso(this.clock.now()),
      disabled_at: null,
    };
    try {
      await q.insertAccount(this.db, row);
    } catch (err) {
      // Two registrations of one e-mail at once: the loser gets the same answer as a late one.
      if (isUniqueViolation(err))
        throw new AppError('EMAIL_ALREADY_EXISTS', 'An account already uses this e-mail');
      throw err;
    }
    return view(row);
  }

  async register(input: NewAccount): Promise<{ token: string; account: AccountView }> {
    const account = await this.create(input);
    return { token: await this.jwt.sign({ accountId: account.id, kind: account.kind }), account };
  }

  async login(email: string, password: string): Promise<{ token: string; account: AccountView }> {
    const row = await q.findByEmail(this.db, email.trim().toLowerCase());
    // Same work and the same answer for an unknown e-mail and a wrong password.
    const ok = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
    if (!row || !ok || row.disabled_at) throw new AppError('INVALID_CREDENTIALS', 'Wrong e-mail or password');
    return { token: await this.jwt.sign({ accountId: row.id, kind: row.kind }), account: view(row) };
  }

  async get(id: string): Promise<AccountView | null> {
    const row = (await this.#findById.run(this.db, [id])).rows[0];
    return row && !row.disabled_at ? view(row) : null;
  }

  /** Bearer strategy: a valid JWT of an existing, enabled account. */
  readonly authenticate = async (token: string): Promise<AccountPrincipal | null> => {
    const claims = await this.jwt.verify(token);
    if (!claims) return null;
    const account = await this.get(claims.accountId);
    if (!account) return null;
    return {
      type: 'account',
      subjectId: account.id,
      accountId: account.id,
      kind: account.kind,
      email: account.email,
      name: account.name,
      tenantId: account.id,
    };
  };
}
