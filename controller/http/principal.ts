import type { AccountKind } from '../modules/accounts/tables.js';

/** Who is calling. `tenantId` scopes every query: the client's own id for a manager. */
export interface AccountPrincipal {
  type: 'account';
  accountId: string;
  kind: AccountKind;
  email: string;
  name: string;
  tenantId: string;
}

export type Principal = AccountPrincipal;

/** What a route accepts: 'public', or the principal kinds allowed. */
export type AuthRequirement = 'public' | readonly AccountKind[];

/** Resolves a bearer token to a principal, or null when this strategy does not recognise it. */
export type AuthStrategy = (token: string) => Promise<Principal | null>;
