// Runs the controller as a process: logger, listen, and a graceful stop on SIGTERM/SIGINT.
import type { Config } from './config.js';
import { createController } from './controller.js';
import { createLogger } from './logger.js';

export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const controller = await createController({ config, logger });
  const address = await controller.listen();
  logger.info(
    { address: address.address, port: address.port, db: redactUrl(config.db), clock: config.clock },
    'controller listening',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    controller.close().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const redactUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
