// Usage alerts (docs/api/qoe.md, "Usage alerts"): a push that only suggests. Each type is raised
// once per NAS and router day (the qoe_alerts key, whichever instance or path gets there first);
// the push goes only when `urgent_push` and `usage_alert_push` allow it. Nothing here sends a
// command to a router: no throttle, CoA or disconnect follows an alert.
import { iso, type Clock } from '../../core/clock.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { BandwidthService } from '../bandwidth/index.js';
import type { NasService } from '../nas/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { UsageService } from '../usage/index.js';
import { nasUsage, type NasUsage } from './nas-usage.js';
import * as q from './queries.js';

export type AlertType = 'DAILY' | 'ACCELERATION';

export interface AlertDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  nas: NasService;
  usage: UsageService;
  bandwidth: BandwidthService;
  notifications: NotificationsService;
}

const REASONS: Record<AlertType, string> = {
  DAILY: 'Le volume du jour a atteint 100 Gio sur le lien WAN.',
  ACCELERATION:
    "Au moins 5 Gio en deux heures, à un rythme supérieur d'au moins 35 % à celui du début de journée.",
};

const TITLES: Record<AlertType, string> = {
  DAILY: 'Consommation élevée aujourd’hui',
  ACCELERATION: 'Consommation en forte hausse',
};

function body(type: AlertType, name: string, u: NasUsage): string {
  const v = u.verdict;
  const lead =
    type === 'DAILY'
      ? `${name} : ${v.daily_gb} Go consommés aujourd’hui.`
      : `${name} : ${v.last_two_hours_gb} Go ces deux dernières heures (+${v.acceleration_pct} %).`;
  return `${lead} Suggestion : revoir le partage équitable pour demain. Aucun usager ni aucune application n’a été bridé ou coupé.`;
}

const PAGE = 500;

export class UsageAlerts {
  constructor(private readonly deps: AlertDeps) {}

  /** Raises what today's usage of the NAS calls for; answers the alerts newly raised. */
  async check(clientId: string, nasId: string, allocationId: string, now: Date): Promise<AlertType[]> {
    const u = await nasUsage(this.deps.usage, clientId, allocationId, now);
    const due: AlertType[] = [];
    if (u.verdict.daily_warning) due.push('DAILY');
    if (u.verdict.accelerating) due.push('ACCELERATION');
    if (due.length === 0) return [];
    const nas = await this.deps.nas.findLive(clientId, nasId);
    if (!nas) return [];
    const switches = await this.deps.bandwidth.preferences.qoeSwitches(clientId);
    const push = switches.urgent_push && switches.usage_alert_push;
    const usage = {
      daily_gb: u.verdict.daily_gb,
      last_two_hours_gb: u.verdict.last_two_hours_gb,
      acceleration_pct: u.verdict.acceleration_pct,
    };
    const raised: AlertType[] = [];
    for (const type of due) {
      const created = await this.deps.db.transaction().execute(async (trx) => {
        const row = {
          nas_id: nasId,
          type,
          day: u.day,
          client_id: clientId,
          raised_at: iso(this.deps.clock.now()),
          pushed: push ? 1 : 0,
          usage: JSON.stringify(usage),
        };
        if (!(await q.insertAlert(trx, row))) return false;
        if (push)
          await this.deps.notifications.notify(
            {
              recipientId: clientId,
              type: 'QOE_USAGE_ALERT',
              title: TITLES[type],
              body: body(type, nas.shortname, u),
              data: {
                nas_id: nasId,
                alert: type,
                date: u.day,
                usage,
                recommendation: {
                  mode: 'SUGGEST_ONLY',
                  action: 'SCHEDULE_NEXT_DAY_FAIR_QUEUE_REVIEW',
                  reason: REASONS[type],
                },
              },
              dedupKey: `${nasId}:${type}:${u.day}`,
              channels: ['in_app', 'push'],
            },
            trx,
          );
        return true;
      });
      if (created) raised.push(type);
    }
    return raised;
  }

  /** The catch-up pass: every enrolled NAS is checked (usage also arrives through agent reports). */
  async catchUp(now: Date): Promise<{ checked: number; raised: number }> {
    let after = '';
    let checked = 0;
    let raised = 0;
    for (;;) {
      const page = await q.listBridgeTokens(this.deps.db, after, PAGE);
      for (const row of page) {
        try {
          raised += (await this.check(row.client_id, row.nas_id, row.allocation_id, now)).length;
        } catch (err) {
          this.deps.logger.warn(
            { nasId: row.nas_id, err: (err as Error).message },
            'usage alert check failed',
          );
        }
        checked++;
      }
      if (page.length < PAGE) return { checked, raised };
      after = page[page.length - 1]!.nas_id;
    }
  }
}
