// Runs the controller as a process: logger, listen, and a graceful stop on SIGTERM/SIGINT.
import type { Config } from './config.js';
import { createController, type Controller } from './controller.js';
import { createLogger, errorFields } from './logger.js';

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const running: { controller?: Controller } = {};
  let stopping = false;

  // Handlers go in before anything else: a signal that lands while the controller starts must not
  // take the default (kill) action; it stops the controller as soon as it is up.
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    if (!running.controller) return;
    // Exit by emptying the event loop, not process.exit(): pino's exit-time flush retries forever on
    // a closed stdout (a dead log shipper), which would leave a stopped controller hanging.
    // The unref'd timer only fires if something still holds the loop open.
    const exit = (code: number) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), 2000).unref();
    };
    running.controller.close().then(
      () => exit(0),
      (err) => {
        logger.error(errorFields(err, logger), 'unclean stop');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const controller = await createController({ config, logger });
  running.controller = controller;
  const address = await controller.listen();
  logger.info(
    { address: address.address, port: address.port, db: redactUrl(config.db), clock: config.clock },
    'controller listening',
  );
  if (stopping) {
    stopping = false;
    stop('signal during start-up');
  }
}

const redactUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
