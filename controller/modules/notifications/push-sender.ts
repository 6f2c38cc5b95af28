// How a push leaves the controller. The dispatcher knows only this interface; the logging sender
// is the default, the FCM sender is chosen by configuration, tests inject their own.
import type { Logger } from '../../logger.js';

export interface PushMessage {
  title: string;
  body: string;
  /** Flat string map (what FCM carries); always holds `type`. */
  data: Record<string, string>;
}

export interface PushSender {
  /** Resolves when the push was handed over; throws PushSkipped when there is nowhere to send it. */
  send(recipientId: string, message: PushMessage): Promise<void>;
}

/** Nothing to send to (no device registered): recorded as SKIPPED, never retried. */
export class PushSkipped extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PushSkipped';
  }
}

/** The provider refused this message for good (a malformed request, a revoked key): FAILED, no retry. */
export class PushRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PushRejected';
  }
}

/** Writes each push to the log: a controller without a push provider still shows what it would send. */
export class LoggingPushSender implements PushSender {
  constructor(private readonly logger: Logger) {}

  send(recipientId: string, message: PushMessage): Promise<void> {
    this.logger.info({ recipientId, type: message.data.type, title: message.title }, 'push (logging sender)');
    return Promise.resolve();
  }
}
