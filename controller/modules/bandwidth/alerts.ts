// Bandwidth notifications (docs/api/bandwidth.md, "Notifications"): on transitions only (cap on,
// cap lifted, peak found, router unreachable), never for one user's throttle; the same alert of a
// router at most once in 6 hours; `bandwidth_push` false keeps them out of push; quiet hours,
// read in the router's time zone, hold the push back, except for an unreachable router.
import { iso } from '../../core/clock.js';
import { routerDay } from '../usage/index.js';
import type { BandwidthDeps } from './deps.js';
import { inQuietHours, type Preferences } from './preferences.js';
import * as q from './queries.js';

export type AlertKind = 'THROTTLE_ON' | 'THROTTLE_OFF' | 'PEAK' | 'ROUTER_UNREACHABLE';

export const ALERT_REPEAT_MS = 6 * 3_600_000;

const TEXTS: Record<AlertKind, { title: string; body: (name: string) => string }> = {
  THROTTLE_ON: { title: 'Bridage activé', body: (n) => `Le débit de ${n} est plafonné.` },
  THROTTLE_OFF: { title: 'Bridage levé', body: (n) => `Le débit de ${n} n'est plus plafonné.` },
  PEAK: {
    title: 'Pic de consommation',
    body: (n) => `${n} consomme nettement plus vite que plus tôt dans la journée.`,
  },
  ROUTER_UNREACHABLE: {
    title: 'Routeur injoignable',
    body: (n) => `${n} ne répond plus : le bridage ne peut pas être vérifié.`,
  },
};

export class BandwidthAlerts {
  constructor(
    private readonly deps: BandwidthDeps,
    private readonly preferences: Preferences,
  ) {}

  async send(
    clientId: string,
    nasId: string,
    kind: AlertKind,
    routerName: string,
    timeZone: string,
  ): Promise<boolean> {
    const now = this.deps.clock.now();
    const last = await q.lastAlert(this.deps.db, clientId, nasId, kind);
    if (last && now.getTime() - Date.parse(last.sent_at) < ALERT_REPEAT_MS) return false;
    const prefs = await this.preferences.get(clientId);
    const local = routerDay(now, timeZone);
    const quiet =
      kind !== 'ROUTER_UNREACHABLE' &&
      inQuietHours(Math.floor(local.hoursIntoDay), prefs.quiet_start, prefs.quiet_end);
    const push = prefs.bandwidth_push;
    const text = TEXTS[kind];
    await this.deps.notifications.notify({
      recipientId: clientId,
      type: 'BANDWIDTH',
      title: text.title,
      body: text.body(routerName),
      // The app reads `metadata.type` and `metadata.nas_id` (the push carries `metadata` as JSON text,
      // FCM's data being flat strings).
      data: { metadata: { type: 'BANDWIDTH', nas_id: nasId, alerte: kind } },
      dedupKey: `${nasId}:${kind}:${iso(now)}`,
      channels: push ? ['in_app', 'push'] : ['in_app'],
      ...(push && quiet ? { quietHours: quietWindowUtc(now, local.hoursIntoDay, prefs.quiet_end!) } : {}),
    });
    await q.saveAlert(this.deps.db, clientId, nasId, kind, iso(now));
    return true;
  }
}

// The notifications module takes a UTC window: the rest of this quiet period, from now until the
// router's local quiet_end, said in UTC.
function quietWindowUtc(now: Date, localHours: number, quietEnd: number): { start: string; end: string } {
  const hoursLeft = (quietEnd - localHours + 24) % 24 || 24;
  const end = new Date(now.getTime() + hoursLeft * 3_600_000);
  const hhmm = (d: Date) =>
    `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return { start: hhmm(now), end: hhmm(end) };
}
