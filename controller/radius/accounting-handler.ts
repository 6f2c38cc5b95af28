// Accounting-Request: records what the report says (in the next group commit) and answers
// Accounting-Response once it is committed, so a report the NAS saw acknowledged is never lost.
// Every verified report is answered, even one about a user who is no ticket, or the NAS would
// resend it forever.
import radius from 'radius';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { NasEntry } from './nas-directory.js';
import { encodeReply } from './reply-builder.js';
import { readAccounting } from './session-update.js';
import type { WriteBehind } from './write-behind.js';

export class AccountingHandler {
  constructor(
    private readonly writer: WriteBehind,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Told of each Stop once it is committed; must not throw. */
    private readonly stopped: (stop: {
      clientId: string;
      nasId: string;
      acctSessionId: string;
    }) => void = () => undefined,
  ) {}

  async handle(packet: Buffer, nas: NasEntry): Promise<Buffer> {
    // The codec decodes the request (a verified packet): the project writes no RADIUS codec of its own.
    const attrs = radius.decode_without_secret({ packet }).attributes as Record<string, unknown>;
    const report = readAccounting(attrs, nas, this.clock.now());
    if (report.kind === 'session') {
      await this.writer.session(report.update);
      const u = report.update;
      if (u.status === 'Stop')
        this.stopped({ clientId: u.clientId, nasId: u.nasId, acctSessionId: u.acctSessionId });
    } else if (report.kind === 'nas-reset') await this.writer.nasReset(report.reset);
    else this.logger.debug({ nasId: nas.nasId, why: report.why }, 'accounting report not recorded');
    return encodeReply('Accounting-Response', packet, nas.secret, []);
  }
}
