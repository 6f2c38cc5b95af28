// RADIUS_AFFLUENCE: every day at 20:00 UTC, one notification per client with activity that day
// (at least one authentication, accepted or refused) giving its connections, devices, peak hour
// and refusals. Clients without activity get nothing. The key `affluence:<date>` makes a second
// run of the same day (another instance, a manual run) send nothing new.
import { errorFields, type Logger } from '../../logger.js';
import type { NotificationsService } from '../notifications/index.js';
import type { AffluenceReport } from './report.js';
import type { AffluenceService } from './service.js';

export const AFFLUENCE_TYPE = 'RADIUS_AFFLUENCE';

export interface DailyReportDeps {
  affluence: AffluenceService;
  notifications: NotificationsService;
  logger: Logger;
  /** The RADIUS_AFFLUENCE_REPORT_ENABLED flag. */
  enabled: () => boolean;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n > 1 ? many : one}`;

/** 2026-11-21 → 21/11/2026 */
const frenchDate = (date: string): string => date.split('-').reverse().join('/');

export function affluenceText(r: AffluenceReport): { title: string; body: string } {
  const parts = [
    plural(r.connexions, 'connexion', 'connexions'),
    plural(r.clients, 'client', 'clients'),
    r.pic.heure === null
      ? 'pas de pic'
      : `pic à ${String(r.pic.heure).padStart(2, '0')}:00 (${plural(r.pic.connexions, 'connexion', 'connexions')})`,
    plural(r.refus, 'refus', 'refus'),
  ];
  if (r.boucles.length > 0) parts.push(plural(r.boucles.length, 'appareil en boucle', 'appareils en boucle'));
  return { title: `Affluence du ${frenchDate(r.date)}`, body: `${parts.join(', ')}.` };
}

export async function sendDailyReports(
  deps: DailyReportDeps,
  date: string,
): Promise<{ date: string; active_clients: number; sent: number; failed: number }> {
  const dedupKey = `affluence:${date}`;
  const clients = await deps.affluence.clientsWithActivity(date);
  let sent = 0;
  let failed = 0;
  for (const clientId of clients) {
    try {
      if (await reportOne(deps, clientId, date, dedupKey)) sent += 1;
    } catch (err) {
      // One client's fault (a log row of a deleted account) must not cost the others their report;
      // a later run of the day retries it, the key keeps the others from a second copy.
      failed += 1;
      deps.logger.error({ ...errorFields(err, deps.logger), clientId, date }, 'affluence report failed');
    }
  }
  deps.logger.info({ date, clients: clients.length, sent, failed }, 'affluence reports');
  return { date, active_clients: clients.length, sent, failed };
}

async function reportOne(
  deps: DailyReportDeps,
  clientId: string,
  date: string,
  dedupKey: string,
): Promise<boolean> {
  // Checked first so a second run of the day does not recompute every report.
  if (await deps.notifications.exists(clientId, AFFLUENCE_TYPE, dedupKey)) return false;
  const report = await deps.affluence.report(clientId, { date });
  const { title, body } = affluenceText(report);
  const { created } = await deps.notifications.notify({
    recipientId: clientId,
    type: AFFLUENCE_TYPE,
    title,
    body,
    data: {
      date,
      connexions: report.connexions,
      clients: report.clients,
      refus: report.refus,
      pic_heure: report.pic.heure,
      pic_connexions: report.pic.connexions,
      boucles: report.boucles.length,
    },
    dedupKey,
    channels: ['in_app', 'push'],
  });
  return created;
}
