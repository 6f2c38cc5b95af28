// Writes one group-commit batch: the authentication log, the ticket status changes decided by
// authentication, then the accounting reports and the ticket usage they imply.
import { newId } from '../core/ids.js';
import type { Db } from '../db/database.js';
import type { TicketAuthService } from '../modules/tickets/index.js';
import * as q from './queries.js';
import { sessionRow } from './session-update.js';
import { padToStatementSize } from './statement-padding.js';
import type { Batch } from './write-behind.js';

/** Groups items by a key, keeping their order. */
function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Statements run in a few fixed sizes (compiled once, each far under any bind-parameter limit). */
export function bookkeeping(db: Db, tickets: TicketAuthService) {
  const authLog = q.authLogStatement(db);
  const sessions = new q.SessionStatements(db);

  return async function persist(trx: Db, batch: Batch): Promise<void> {
    await authLog.run(trx, batch.authLog);
    for (const [clientId, uses] of groupBy(batch.firstUse, (f) => f.clientId)) {
      // Padding repeats the last item (same code, same values): the update applies it once.
      await tickets.markFirstUse(trx, clientId, padToStatementSize(uses));
    }
    for (const e of batch.exhaust) await tickets.markExhausted(trx, e.clientId, e.code);

    // A NAS restart closes what was open before the reports that follow it in this batch.
    for (const r of batch.resets) await q.closeNasSessions(trx, r.clientId, r.nasId, r.at);
    if (batch.sessions.size === 0) return;
    const updates = [...batch.sessions.values()];
    await sessions.upsert(
      trx,
      updates.map((u) => sessionRow(u, newId())),
    );
    // Ticket usage is the sum over its sessions, recomputed for the tickets these reports touch,
    // so a duplicate or reordered report can never count twice.
    for (const group of groupBy(updates, (u) => `${u.clientId}\n${u.nasId}`).values()) {
      const { clientId, nasId, at } = group[group.length - 1]!;
      const usages = await sessions.usage(trx, clientId, [...new Set(group.map((u) => u.username))]);
      if (usages.length > 0) await tickets.recordUsage(trx, clientId, nasId, at, padToStatementSize(usages));
    }
  };
}
