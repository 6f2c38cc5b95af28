// A pino logger whose JSON lines are kept in memory, so a test can read what was logged.
import { pino, type Logger } from 'pino';

export interface LogCapture {
  logger: Logger;
  /** Every line as written (JSON text). */
  lines: string[];
  /** The lines parsed. */
  records(): Record<string, unknown>[];
}

export function captureLogs(level = 'info'): LogCapture {
  const lines: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}
