// RADIUS_MIGRATION notifications: one per step of a run (SAUVEGARDE, IMPORT, RETRAIT_LOCAL,
// ARMEMENT, ECHEC), in French like the rest of the manager's texts, with the counts.
import { errorFields, type Logger } from '../../logger.js';
import type { NotificationsService } from '../notifications/index.js';

export const MIGRATION_NOTIFICATION = 'RADIUS_MIGRATION';

export type NoticeStep = 'SAUVEGARDE' | 'IMPORT' | 'RETRAIT_LOCAL' | 'ARMEMENT' | 'ECHEC';

export type Notice =
  | { step: 'SAUVEGARDE'; comptes: number; octets: number }
  | { step: 'IMPORT'; importes: number; comptes: number; complet: boolean }
  | { step: 'RETRAIT_LOCAL'; retires: number; raison: string | null; restes: number | null }
  | { step: 'ARMEMENT'; importes: number; retires: number }
  | { step: 'ECHEC'; code: string };

export function noticeText(router: string, n: Notice): { title: string; body: string } {
  switch (n.step) {
    case 'SAUVEGARDE':
      return {
        title: 'Migration RADIUS : sauvegarde',
        body: `Sauvegarde du routeur ${router} rapatriée et vérifiée (${n.octets} octets) : ${n.comptes} comptes sauvegardés.`,
      };
    case 'IMPORT':
      return {
        title: 'Migration RADIUS : import',
        body: n.complet
          ? `${n.importes} comptes sur ${n.comptes} importés dans RADIUS pour le routeur ${router}.`
          : `Import incomplet pour le routeur ${router} : ${n.importes} comptes sur ${n.comptes} dans RADIUS. Les comptes locaux restent sur le routeur.`,
      };
    case 'RETRAIT_LOCAL':
      if (n.raison !== null && n.retires === 0) {
        return {
          title: 'Migration RADIUS : retrait refusé',
          body: `Aucun compte local retiré du routeur ${router} (${n.raison}) : il garde ses comptes locaux et RADIUS.`,
        };
      }
      return {
        title: 'Migration RADIUS : retrait des comptes locaux',
        body:
          `${n.retires} comptes locaux retirés du routeur ${router}, vérifiés par comptage.` +
          (n.restes ? ` ${n.restes} comptes restent sur le routeur.` : '') +
          (n.raison !== null ? ` Retrait arrêté : ${n.raison}.` : ''),
      };
    case 'ARMEMENT':
      return {
        title: 'Migration RADIUS : en attente de la première connexion',
        body: `Le routeur ${router} interroge RADIUS (${n.importes} comptes importés, ${n.retires} retirés du routeur). La migration sera confirmée à la première connexion.`,
      };
    case 'ECHEC':
      return {
        title: 'Migration RADIUS arrêtée',
        body: `La migration du routeur ${router} s'est arrêtée (${n.code}). Aucun compte n'a été retiré du routeur.`,
      };
  }
}

/** Writes the step's notification once per run (a retried write finds it). Never fails the run. */
export async function notifyStep(
  notifications: NotificationsService,
  logger: Logger,
  target: { clientId: string; allocationId: string; runId: string; router: string },
  notice: Notice,
): Promise<void> {
  const { title, body } = noticeText(target.router, notice);
  try {
    await notifications.notify({
      recipientId: target.clientId,
      type: MIGRATION_NOTIFICATION,
      title,
      body,
      data: { allocation_id: target.allocationId, etape: notice.step },
      dedupKey: `${target.runId}:${notice.step}`,
      channels: ['in_app', 'push'],
    });
  } catch (err) {
    // The router work is done or stopped either way; a lost notice must not change its answer.
    logger.error(
      { ...errorFields(err, logger), allocationId: target.allocationId, step: notice.step },
      'migration notice not written',
    );
  }
}
