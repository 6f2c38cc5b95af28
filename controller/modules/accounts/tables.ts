import type { AccountKind } from '../../http/principal.js';

export type { AccountKind };

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  name: string;
  kind: AccountKind;
  created_at: string;
  disabled_at: string | null;
}

export interface AccountsTables {
  accounts: AccountsTable;
}
