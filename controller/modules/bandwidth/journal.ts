// The activity journal (`GET /bandwidth/activity`): entries written by the reconciliation, read
// newest first with an opaque cursor. The cursor is the last entry's `(at, id)`: an entry written
// later sorts before it, so paging never repeats nor skips an entry while new ones arrive.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import * as q from './queries.js';

export type ActivityType = 'THROTTLE_ON' | 'THROTTLE_OFF' | 'USER_THROTTLED' | 'ROUTER_UNREACHABLE';

export interface ActivityEntry {
  id: string;
  nas_id: string;
  type: string;
  date: string;
  texte: string;
  detail: Record<string, unknown>;
}

const MOTIFS: Record<string, string> = {
  JOUR_PROGRAMME: 'jour programmé',
  QUOTA_JOURNALIER: 'quota journalier atteint',
  QUOTA_MENSUEL: 'quota mensuel atteint',
  PIC_DE_CONSOMMATION: 'pic de consommation',
  PLAFOND_SATELLITE: 'plafond du forfait satellite',
};

/** The French sentence shown for an entry. */
export function activityText(type: string, detail: Record<string, unknown>, routerName: string): string {
  switch (type) {
    case 'THROTTLE_ON':
      return `Bridage activé sur ${routerName} à ${String(detail.limit_mbps)} Mbit/s (${MOTIFS[String(detail.motif)] ?? String(detail.motif)}).`;
    case 'THROTTLE_OFF':
      return `Bridage levé sur ${routerName} : le débit n'est plus plafonné.`;
    case 'USER_THROTTLED':
      return `L'usager ${String(detail.username)} est ralenti sur ${routerName} : ${String(detail.observe_gb)} Go consommés aujourd'hui.`;
    case 'ROUTER_UNREACHABLE':
      return `${routerName} est injoignable : ses files d'attente restent telles quelles jusqu'à son retour.`;
    default:
      return `Événement ${type} sur ${routerName}.`;
  }
}

export function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      !Number.isNaN(Date.parse(v[0]))
    )
      return { at: v[0], id: v[1] };
  } catch {
    // answered below
  }
  throw new AppError('VALIDATION_ERROR', 'avant is not a cursor this API gave', {
    details: [{ field: 'avant', message: 'unknown cursor' }],
  });
}

export class Journal {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async record(
    clientId: string,
    nasId: string,
    type: ActivityType,
    detail: Record<string, unknown>,
    routerName: string,
  ): Promise<void> {
    await q.insertActivity(this.db, {
      id: newId(),
      client_id: clientId,
      nas_id: nasId,
      type,
      at: iso(this.clock.now()),
      texte: activityText(type, detail, routerName),
      detail: JSON.stringify(detail),
    });
  }

  async page(clientId: string, limit: number, avant: string | undefined, nasId: string | undefined) {
    const before = avant ? decodeCursor(avant) : null;
    const rows = await q.activityPage(this.db, clientId, limit + 1, before, nasId);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      activites: page.map((r): ActivityEntry => ({
        id: r.id,
        nas_id: r.nas_id,
        type: r.type,
        date: r.at,
        texte: r.texte,
        detail: JSON.parse(r.detail) as Record<string, unknown>,
      })),
      suivant: rows.length > limit && last ? encodeCursor(last.at, last.id) : null,
    };
  }
}
