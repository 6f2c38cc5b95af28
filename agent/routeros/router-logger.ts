/** One log method, pino style: structured fields first, then the message. */
export type RouterLogFn = (fields: Record<string, unknown>, message?: string) => void;

/** The part of a pino logger the RouterOS adapter uses; a pino Logger fits as is. */
export interface RouterLogger {
  debug: RouterLogFn;
  info: RouterLogFn;
  warn: RouterLogFn;
  error: RouterLogFn;
}

const noop: RouterLogFn = () => undefined;

/** Logger used when the caller gives none. */
export const SILENT_LOGGER: RouterLogger = { debug: noop, info: noop, warn: noop, error: noop };
