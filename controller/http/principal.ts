// The kinds of account a route may admit (the accounts module stores them; routes only name them).
export type AccountKind = 'client' | 'technician' | 'partner' | 'admin';

/** Who is calling. `tenantId` scopes every query: the client (manager) the caller belongs to. */
export interface AccountPrincipal {
  type: 'account';
  /** The account id; rate limiters key on it. */
  subjectId: string;
  accountId: string;
  kind: AccountKind;
  email: string;
  name: string;
  tenantId: string;
}

/** A reseller authenticated by its reseller token: its only identity. */
export interface ResellerPrincipal {
  type: 'reseller';
  subjectId: string;
  resellerId: string;
  kind: 'reseller';
  username: string;
  tenantId: string;
}

export type Principal = AccountPrincipal | ResellerPrincipal;

export type PrincipalKind = Principal['kind'];

/** What a route accepts: 'public', or the principal kinds allowed. */
export type AuthRequirement = 'public' | readonly PrincipalKind[];

/** Resolves a bearer token to a principal, or null when this strategy does not recognise it. */
export type AuthStrategy = (token: string) => Promise<Principal | null>;
