import { hostname } from 'node:os';

/** One log method, pino style: structured fields first, then the message. */
export type LogFn = (fields: Record<string, unknown>, message?: string) => void;

/** The part of a pino logger the agent uses, so tests can pass a silent or recording one. */
export interface AgentLogger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** pino's level numbers, which log collectors already read. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
type LevelName = keyof typeof LEVELS;

/**
 * JSON lines on stdout (what a service manager or `/container log` collects), in pino's format:
 * `{"level":30,"time":…,"pid":…,"hostname":…,"name":"ticketnet-agent",…fields,"msg":…}`.
 * Written by hand rather than with pino: pino and its stream loaded worker_threads, assert, module
 * and diagnostics_channel into an agent that uses none of them (memory the idle agent paid for).
 */
export function createLogger(
  level = process.env.TICKETNET_LOG_LEVEL ?? 'info',
  write: (line: string) => void = (line) => void process.stdout.write(line),
): AgentLogger {
  const threshold = LEVELS[level as LevelName] ?? (level === 'silent' ? Infinity : undefined);
  if (threshold === undefined) throw new Error(`unknown log level "${level}"`);
  const head = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"name":"ticketnet-agent"`;
  const method =
    (value: number): LogFn =>
    (fields, message) => {
      if (value < threshold) return;
      write(`{"level":${value},"time":${Date.now()},${head}${body(fields, message)}}\n`);
    };
  return {
    debug: method(LEVELS.debug),
    info: method(LEVELS.info),
    warn: method(LEVELS.warn),
    error: method(LEVELS.error),
  };
}

/** `,"key":value…,"msg":"…"`; an `err` field gets errorFields' shape (never a stack). */
function body(fields: Record<string, unknown>, message?: string): string {
  let out = '';
  for (const key of Object.keys(fields)) {
    const value = key === 'err' ? errorFields(fields[key]).error : fields[key];
    if (value === undefined) continue;
    out += `,${JSON.stringify(key)}:${safeJson(value)}`;
  }
  return message === undefined ? out : `${out},"msg":${JSON.stringify(message)}`;
}

/** JSON of a field's value; one that cannot be written (a cycle, a BigInt) never throws from a log call. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return '"[unserializable]"';
  }
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
