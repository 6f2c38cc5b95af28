import { pino } from 'pino';

/** One log method, pino style: structured fields first, then the message. */
export type LogFn = (fields: Record<string, unknown>, message?: string) => void;

/** The part of a pino logger the agent uses, so tests can pass a silent or recording one. */
export interface AgentLogger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** JSON lines on stdout (what a service manager or `/container log` collects). */
export function createLogger(level = process.env.TICKETNET_LOG_LEVEL ?? 'info'): AgentLogger {
  // pino's default `err` serializer writes the stack: an `err` field gets errorFields' shape instead.
  return pino({
    name: 'ticketnet-agent',
    level,
    serializers: { err: (err: unknown) => errorFields(err).error },
  });
}

/** The fields that describe an error in a log line: type, code and message, never a stack. */
export function errorFields(err: unknown): { error: { type: string; code?: string; message: string } } {
  if (!(err instanceof Error)) return { error: { type: typeof err, message: String(err) } };
  const code = (err as { code?: unknown }).code;
  return {
    error: {
      type: err.name,
      ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
      message: err.message,
    },
  };
}

const noop: LogFn = () => undefined;

/** A logger that drops everything. */
export const SILENT_LOGGER: AgentLogger = { debug: noop, info: noop, warn: noop, error: noop };
