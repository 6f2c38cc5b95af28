// Pure rules of the takeover: from one reseller account as the agent read it on the router to
// the reseller row and ledger lines the centre writes. No I/O here, so every rule has a unit test.
//   - username: the router login lowercased and stripped of spaces (`FATOU ` → `fatou`).
//   - The router kept only its last movements: opening = router balance − sum(kept movements)
//     (what the lost ones left), written first as an OPENING line keyed `opening:<serial>`, so the
//     ledger sums to the router's balance. Each kept movement is one IMPORT line keyed by its
//     trimmed `txn_…` id, dated by the time the id carries.
import type { CommandOutput } from '../../../protocol/index.js';
import type { ResellerIdentity } from '../resellers/index.js';
import { normaliseUsername } from '../tickets/index.js';

export type RouterAccount = CommandOutput<'resellers.export'>['accounts'][number];

export type SkipReason = 'INVALID_USERNAME' | 'NO_BALANCE' | 'NEGATIVE_BALANCE' | 'DUPLICATE_USERNAME';

export interface PlannedLine {
  key: string;
  type: 'OPENING' | 'IMPORT';
  amount: number;
  reason: string;
  /** When the movement happened (ISO); null when unknown (the takeover time is used). */
  at: string | null;
  /** A purchase of tickets: counts in `total_sales` (what the reseller bought from the manager). */
  purchase: boolean;
}

export interface AccountPlan {
  username: string;
  routerName: string;
  routerBalance: number;
  opening: number;
  openingLine: PlannedLine | null;
  movements: PlannedLine[];
  identity: ResellerIdentity;
  warnings: string[];
}

export type PlanResult =
  | { ok: true; plan: AccountPlan }
  | { ok: false; username: string | null; routerName: string; reason: SkipReason; warnings: string[] };

const USERNAME = /^[\p{L}\p{M}\p{N}._@-]{1,64}$/u;

export const openingKey = (serial: string): string => `opening:${serial}`;

export function planAccount(account: RouterAccount, serial: string): PlanResult {
  const routerName = account.name;
  const username = normaliseUsername(routerName);
  const warnings = [...account.warnings];
  const skip = (reason: SkipReason, u: string | null = username): PlanResult => ({
    ok: false,
    username: u,
    routerName,
    reason,
    warnings,
  });
  if (!USERNAME.test(username)) return skip('INVALID_USERNAME', null);
  if (account.balance === null) return skip('NO_BALANCE');
  if (account.balance < 0) return skip('NEGATIVE_BALANCE');
  if (account.login !== undefined && normaliseUsername(account.login) !== username) {
    warnings.push(`u=${account.login} differs from the account name; the account name is kept`);
  }
  const movements = account.movements.map((m): PlannedLine => ({
    key: m.id.trim(),
    type: 'IMPORT',
    amount: m.amount,
    reason: `router ${m.kind || 'movement'}${m.note ? `: ${m.note}` : ''}`.slice(0, 200),
    at: m.at,
    purchase: m.kind === 'achat' && m.amount < 0,
  }));
  const kept = movements.reduce((sum, m) => sum + m.amount, 0);
  const opening = account.balance - kept;
  if (opening < 0) {
    warnings.push(`the router's movements (${kept} XOF) exceed its balance; opening balance ${opening} XOF`);
  }
  const openingLine: PlannedLine | null =
    opening === 0
      ? null
      : {
          key: openingKey(serial),
          type: 'OPENING',
          amount: opening,
          reason: `opening balance taken over from router ${serial} (older movements not kept there)`,
          // The balance before the oldest kept movement: dated with it (line_no keeps the order).
          at: movements[0]?.at ?? (account.created_on ? `${account.created_on}T00:00:00.000Z` : null),
          purchase: false,
        };
  return {
    ok: true,
    plan: {
      username,
      routerName,
      routerBalance: account.balance,
      opening,
      openingLine,
      movements,
      identity: {
        first_name: account.first_name ?? null,
        last_name: account.last_name ?? null,
        phone: account.phone ?? null,
        email: account.email ?? null,
        commission_rate: account.commission_rate ?? 0,
        disabled: account.disabled,
        created_on_router_at: account.created_on ? `${account.created_on}T00:00:00.000Z` : null,
      },
      warnings,
    },
  };
}

/** Plans every account; a second account with the same username is skipped (never merged). */
export function planAccounts(accounts: readonly RouterAccount[], serial: string): PlanResult[] {
  const seen = new Set<string>();
  return accounts.map((account) => {
    const result = planAccount(account, serial);
    if (!result.ok) return result;
    if (seen.has(result.plan.username)) {
      return {
        ok: false,
        username: result.plan.username,
        routerName: account.name,
        reason: 'DUPLICATE_USERNAME',
        warnings: [...result.plan.warnings, `another router account is also ${result.plan.username}`],
      };
    }
    seen.add(result.plan.username);
    return result;
  });
}

/**
 * Balances after each line from `start`; undefined when one would go below zero. Used for the
 * movements a replay adds to an existing reseller, whose balance must never go negative.
 */
export function runningBalances(start: number, lines: readonly PlannedLine[]): number[] | undefined {
  const out: number[] = [];
  let balance = start;
  for (const line of lines) {
    balance += line.amount;
    if (balance < 0) return undefined;
    out.push(balance);
  }
  return out;
}

/** What a set of lines adds to `total_sales`: the purchases' debits, as a positive sum. */
export const purchases = (lines: readonly PlannedLine[]): number =>
  lines.reduce((sum, l) => (l.purchase ? sum - l.amount : sum), 0);

/** Tag names (as written) grouped as reseller names are compared: lowercased, without spaces. */
export function groupTags(tags: readonly { name: string; count: number }[]): Map<string, number> {
  const grouped = new Map<string, number>();
  for (const t of tags) {
    const name = normaliseUsername(t.name);
    if (name) grouped.set(name, (grouped.get(name) ?? 0) + t.count);
  }
  return grouped;
}
