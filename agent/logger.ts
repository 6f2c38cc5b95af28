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
  return pino({ name: 'ticketnet-agent', level });
}

const noop: LogFn = () => undefined;

/** A logger that drops everything. */
export const SILENT_LOGGER: AgentLogger = { debug: noop, info: noop, warn: noop, error: noop };
