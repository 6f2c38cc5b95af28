// What each remote-access secret is bound to when sealed (the secret box's associated data): a
// sealed value copied to another row, or to another column of its row, does not open.
export const sealContexts = {
  /** A key set's private key, preshared key or SSTP password. */
  profile: (profileId: string, field: 'private_key' | 'preshared_key' | 'password') =>
    `remote-access profile|${profileId}|${field}`,
  /** The router credentials the app deposited for an allocation. */
  credentials: (clientId: string, allocationId: string) =>
    `remote-access credentials|${clientId}|${allocationId}`,
  /** The rescue relay's profile read from an allocation's router. */
  rescue: (clientId: string, allocationId: string) => `remote-access rescue|${clientId}|${allocationId}`,
};
