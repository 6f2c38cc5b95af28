import sinon from 'sinon';
import { expect } from 'chai';
import { RouterError } from '../../../../agent/routeros/router-error.js';
import type { RouterErrorCode } from '../../../../agent/routeros/router-error.js';

/** Resolves to what `promise` rejected with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** Asserts `promise` rejects with a RouterError of `code`, and returns it. */
export async function expectRouterError(
  promise: Promise<unknown>,
  code: RouterErrorCode,
): Promise<RouterError> {
  const err = await rejectionOf(promise);
  expect(err, String(err)).to.be.instanceOf(RouterError);
  expect((err as RouterError).code, (err as RouterError).message).to.equal(code);
  return err as RouterError;
}

/** Waits `ms`: for tests whose subject is time (a router that answers slowly). */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves after the event loop has gone round once: the socket events and promise rejections
 * already queued (a close's 'close' event, a rejection nobody handled) have been delivered by then.
 */
export const oneTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Spies on process-level failures. A throw from a socket handler would land
 * in 'uncaughtException'; these spies make the test see it (and keep mocha
 * from blaming the next test).
 */
export function watchProcessFailures(): { assertNone(): void; restore(): void } {
  const uncaught = sinon.spy();
  const unhandled = sinon.spy();
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', unhandled);
  return {
    assertNone() {
      expect(
        uncaught.args.map((a) => String(a[0])),
        'uncaught exceptions',
      ).to.deep.equal([]);
      expect(
        unhandled.args.map((a) => String(a[0])),
        'unhandled rejections',
      ).to.deep.equal([]);
    },
    restore() {
      process.off('uncaughtException', uncaught);
      process.off('unhandledRejection', unhandled);
    },
  };
}
