// A test controller with a push sender or an HTTP client of the test's own (startTestController
// takes no createController options), plus a recording fake sender.
import { pino } from 'pino';
import type { Config } from '../../../controller/config.js';
import { createController, type ControllerOptions } from '../../../controller/controller.js';
import { ManualClock } from '../../../controller/core/clock.js';
import {
  PushSkipped,
  type PushMessage,
  type PushSender,
} from '../../../controller/modules/notifications/push-sender.js';
import type { TestDatabase } from '../../support/databases.js';
import { START_TIME, TestController, testConfig } from '../../support/test-controller.js';

export async function startWith(
  database: TestDatabase,
  options: Pick<ControllerOptions, 'pushSender' | 'httpClient'> = {},
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Promise<TestController> {
  const db = await database.open();
  const clock = new ManualClock(START_TIME);
  try {
    const controller = await createController({
      config: testConfig(overrides),
      logger: pino({ level: 'silent' }),
      clock,
      database: db,
      ...options,
    });
    return new TestController(controller, clock, db);
  } catch (err) {
    await db.close(); // a controller that failed to start leaves no database behind
    throw err;
  }
}

export type FakeBehaviour =
  'ok' | 'fail' | 'skip' | ((recipientId: string, message: PushMessage) => Promise<void>);

/** Records every push; behaves as told (per call, or the last behaviour once the list runs out). */
export class FakePushSender implements PushSender {
  readonly sent: { recipientId: string; message: PushMessage }[] = [];
  calls = 0;

  constructor(public behaviours: FakeBehaviour[] = ['ok']) {}

  async send(recipientId: string, message: PushMessage): Promise<void> {
    const behaviour = this.behaviours[Math.min(this.calls, this.behaviours.length - 1)] ?? 'ok';
    this.calls += 1;
    if (behaviour === 'fail') throw new Error('provider down');
    if (behaviour === 'skip') throw new PushSkipped('NO_DEVICE');
    if (typeof behaviour === 'function') await behaviour(recipientId, message);
    this.sent.push({ recipientId, message });
  }
}
