// RADIUS_PREMIERE_AUTH: the first five accepted authentications of a client through the server
// each make one notification naming the user and the router; then silence. The count is durable:
// the notification of rank n has the key `premiere:n` (n ≤ 5), unique per client, so a restart or
// two instances racing can never make a sixth. Work is queued off the RADIUS reply path.
import { errorFields, type Logger } from '../../logger.js';
import type { AcceptedEvent } from '../../radius/index.js';
import type { RouterNames } from './router-names.js';
import type { NotificationsService } from './service.js';

export const PREMIERE_TYPE = 'RADIUS_PREMIERE_AUTH';
export const PREMIERE_LIMIT = 5;

export interface PremiereDeps {
  notifications: NotificationsService;
  names: RouterNames;
  logger: Logger;
}

export function premiereText(
  rank: number,
  username: string,
  router: string,
): { title: string; body: string } {
  const title = rank === 1 ? 'Premier client connecté' : `Client connecté (${rank}/${PREMIERE_LIMIT})`;
  const last = rank === PREMIERE_LIMIT ? ' Dernière notification de ce type.' : '';
  return { title, body: `${title} : ${username} sur ${router}.${last}` };
}

export class PremiereAuthNotifier {
  readonly #queue: AcceptedEvent[] = [];
  /** Clients that have their five: a fact that never reverts, so remembering it is safe. */
  readonly #done = new Set<string>();
  #running: Promise<void> | null = null;
  #closed = false;
  #dropped = 0;

  constructor(
    private readonly deps: PremiereDeps,
    private readonly maxQueue = 10_000,
  ) {}

  /** For `radius.onAccepted`: synchronous and cheap; never throws into the RADIUS reply path. */
  readonly listener = (event: AcceptedEvent): void => {
    if (this.#closed || this.#done.has(event.clientId)) return;
    if (this.#queue.length >= this.maxQueue) {
      // Dropping is safe: a later authentication takes the rank this one would have had.
      if (this.#dropped++ % 1000 === 0)
        this.deps.logger.warn({ dropped: this.#dropped }, 'premiere queue full');
      return;
    }
    this.#queue.push(event);
    this.#kick();
  };

  /** Resolves when everything queued so far is handled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops taking events and finishes the queued ones while the database is still open. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
  }

  #kick(): void {
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
      if (this.#queue.length > 0) this.#kick();
    });
  }

  async #drain(): Promise<void> {
    for (let event = this.#queue.shift(); event; event = this.#queue.shift()) {
      if (this.#done.has(event.clientId)) continue;
      try {
        await this.#handle(event);
      } catch (err) {
        // A database fault loses this event only; the next authentication takes its rank.
        this.deps.logger.error(
          { ...errorFields(err, this.deps.logger), clientId: event.clientId },
          'premiere notification failed',
        );
      }
    }
  }

  async #handle(event: AcceptedEvent): Promise<void> {
    const { notifications } = this.deps;
    let count = await notifications.countOfType(event.clientId, PREMIERE_TYPE);
    if (count >= PREMIERE_LIMIT) {
      this.#done.add(event.clientId);
      return;
    }
    const router = await this.#routerName(event);
    // A lost race (another instance took rank n) is seen as "not created": count again.
    while (count < PREMIERE_LIMIT) {
      const rank = count + 1;
      const { title, body } = premiereText(rank, event.username, router);
      const { created } = await notifications.notify({
        recipientId: event.clientId,
        type: PREMIERE_TYPE,
        title,
        body,
        data: {
          rank,
          username: event.username,
          nas_id: event.nasId,
          router,
          at: event.at.toISOString(),
          calling_station_id: event.callingStationId,
        },
        dedupKey: `premiere:${rank}`,
        channels: ['in_app', 'push'],
      });
      if (created) break;
      count = await notifications.countOfType(event.clientId, PREMIERE_TYPE);
    }
    if (count + 1 >= PREMIERE_LIMIT) this.#done.add(event.clientId);
  }

  async #routerName(event: AcceptedEvent): Promise<string> {
    try {
      return (await this.deps.names.nameOf(event.clientId, event.nasId)) ?? event.nasId;
    } catch (err) {
      // The name is a nicety: a failing lookup must not cost the notification.
      this.deps.logger.warn(
        { ...errorFields(err, this.deps.logger), nasId: event.nasId },
        'router name lookup failed',
      );
      return event.nasId;
    }
  }
}
