// Entry point of script execution (`/system/script/run`, `/import`,
// sim.runScript): parse everything first, then run; on failure report the
// message with its line and column as RouterOS does, keeping what already ran.
import type { SimContext } from './command-types.js';
import { ScriptEvaluator } from './script-evaluator.js';
import { ScriptError } from './script-menu-bridge.js';
import { parseScript } from './script-parser.js';
import { ScriptSyntaxError } from './script-tokenizer.js';

export interface ScriptRunResult {
  ok: boolean;
  /** What `:put` printed. */
  output: string[];
  /** The failure as the router reports it, e.g. "failure: ... (line 3 column 1)". */
  error?: string;
  line?: number;
  column?: number;
}

export type ScriptOrigin = 'run' | 'import';

export async function runScriptText(
  sim: SimContext,
  source: string,
  origin: ScriptOrigin = 'run',
): Promise<ScriptRunResult> {
  const evaluator = new ScriptEvaluator(sim);
  try {
    const script = parseScript(source);
    await evaluator.run(script.body);
    return { ok: true, output: evaluator.output };
  } catch (err) {
    let message: string;
    let line: number | undefined;
    let column: number | undefined;
    if (err instanceof ScriptSyntaxError) {
      ({ line, column } = err);
      message = `${err.message} (line ${line} column ${column})`;
    } else if (err instanceof ScriptError) {
      ({ line, column } = err.pos);
      message = err.located ? `${err.message} (line ${line} column ${column})` : err.message;
    } else {
      throw err;
    }
    const error = origin === 'import' ? `${sim.state.caps.importErrorPrefix}${message}` : message;
    sim.state.log('script,error', error);
    return { ok: false, output: evaluator.output, error, ...(line !== undefined ? { line, column } : {}) };
  }
}
