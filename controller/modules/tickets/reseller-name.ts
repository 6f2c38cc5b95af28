// How tickets name their reseller (`reseller_name`): the rule reseller usernames follow, and the
// seller tag a router comment carries (`vendu par Moussa`). Resellers, sales and the router import
// all read names through these two, so a tag and an account compare equal.

/** Reseller usernames are lowercased and stripped of every whitespace character. */
export const normaliseUsername = (raw: string): string => raw.toLowerCase().replace(/\s+/g, '');

/** The reseller a comment names (`vendu par Moussa` → `moussa`), compared as reseller names are. */
export function sellerOf(comment: string | undefined): string | undefined {
  const m = /\bvendu\s+par\s+([^|;,\n]+)/i.exec(comment ?? '');
  const name = m?.[1] ? normaliseUsername(m[1]).slice(0, 64) : '';
  return name || undefined;
}
