import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout; secrets are redacted by path wherever they might appear. */
export function createLogger(level: string, name = 'ticketnet-controller'): Logger {
  return pino({
    name,
    level,
    redact: ['password', '*.password', 'token', '*.token', 'secret', '*.secret', 'req.headers.authorization'],
    // pino's default `err` serializer writes the stack; a caller that still passes `err` gets the
    // same fields as errorFields() instead.
    serializers: { err: (err: unknown) => describeError(err) },
  });
}

export interface ErrorDescription {
  type: string;
  code?: string;
  message: string;
  stack?: string;
}

function describeError(err: unknown): ErrorDescription {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return {
      type: err.name,
      ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
      message: err.message,
    };
  }
  return { type: typeof err, message: String(err) };
}

/**
 * The fields that describe an error in a log line: its type, code and message under `error`. A
 * stack is a path map of the code and no business of a production log, so it is added only when
 * the logger runs at debug level (or finer).
 */
export function errorFields(
  err: unknown,
  logger?: Pick<Logger, 'isLevelEnabled'>,
): { error: ErrorDescription } {
  const error = describeError(err);
  if (logger?.isLevelEnabled('debug') && err instanceof Error && err.stack) error.stack = err.stack;
  return { error };
}
