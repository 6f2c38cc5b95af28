import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; secrets are redacted by path wherever they might appear. */
export function createLogger(level: string, name = 'ticketnet-controller'): Logger {
  return pino({
    name,
    level,
    redact: ['password', '*.password', 'token', '*.token', 'secret', '*.secret', 'req.headers.authorization'],
  });
}
