// The `:` commands of RouterOS script: variables (:local :global :set),
// control flow (:if :do :while :foreach :for), output (:log :put), :delay
// (checked, never waited for) and :error, plus the value functions (:len
// :pick :find :typeof :tostr :tonum :toarray) and, on v7, :rndstr :rndnum.
import type { SimContext } from './command-types.js';
import { parseDuration } from './ros-format.js';
import { ScriptError } from './script-menu-bridge.js';
import type { Item, Pos } from './script-parser.js';
import { CodeBlock, isTrue, length, toNumber, toText, typeOf } from './script-values.js';
import type { Value } from './script-values.js';

const LOG_LEVELS = new Set(['info', 'warning', 'error', 'debug']);
/** What `:rndstr` picks from without `from=`: ASCII letters and digits. */
const RNDSTR_DEFAULT_FROM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RNDSTR_DEFAULT_LENGTH = 16;

/** Loops stop here rather than hang a test. */
const MAX_ITERATIONS = 100_000;

/** What a builtin may ask of the evaluator that runs it. */
export interface BuiltinContext {
  sim: SimContext;
  output: string[];
  /** Where the command starts (for errors). */
  pos: Pos;
  /** Bare words and values after the command name, in order. */
  positional: Item[];
  named(key: string): Item | undefined;
  value(item: Item | undefined): Promise<Value>;
  run(block: CodeBlock | undefined): Promise<Value>;
  /** :local — a variable of the current block. */
  declare(name: string, value: Value): void;
  /** :set — the nearest variable of that name (local, then global). */
  assign(name: string, value: Value): void;
}

export async function runBuiltin(name: string, ctx: BuiltinContext): Promise<Value> {
  const { positional, named, pos } = ctx;
  const valueOf = ctx.value;
  const runBlock = ctx.run;
  const blockOf = async (item: Item | undefined): Promise<CodeBlock | undefined> => {
    const v = await valueOf(item);
    if (v === undefined) return undefined;
    if (!(v instanceof CodeBlock)) throw new ScriptError('expected code block', item?.pos ?? pos, true);
    return v;
  };
  switch (name) {
    case 'local':
    case 'global':
    case 'set': {
      const target = positional[0];
      if (target?.kind !== 'word') throw new ScriptError('expected variable name', target?.pos ?? pos, true);
      const value = await valueOf(positional[1]);
      if (name === 'local') ctx.declare(target.text, value);
      else if (name === 'global') ctx.sim.state.globals.set(target.text, value);
      else ctx.assign(target.text, value);
      return undefined;
    }
    case 'if': {
      const cond = await valueOf(positional[0]);
      const chosen = isTrue(cond) ? named('do') : named('else');
      return runBlock(await blockOf(chosen));
    }
    case 'do': {
      const body = await blockOf(positional[0] ?? named('command'));
      const onError = await blockOf(named('on-error'));
      const whileItem = named('while');
      if (whileItem) {
        let n = 0;
        do {
          await runBlock(body);
          if (++n > MAX_ITERATIONS) throw new ScriptError('too many iterations', pos);
        } while (isTrue(await valueOf(whileItem)));
        return undefined;
      }
      try {
        return await runBlock(body);
      } catch (err) {
        if (!(err instanceof ScriptError) || err.syntax || !onError) throw err;
        return runBlock(onError);
      }
    }
    case 'while': {
      const body = await blockOf(named('do'));
      for (let n = 0; isTrue(await valueOf(positional[0])); n++) {
        if (n > MAX_ITERATIONS) throw new ScriptError('too many iterations', pos);
        await runBlock(body);
      }
      return undefined;
    }
    case 'foreach': {
      const variable = positional[0];
      if (variable?.kind !== 'word') throw new ScriptError('expected variable name', pos, true);
      const list = await valueOf(named('in'));
      const body = await blockOf(named('do'));
      for (const v of Array.isArray(list) ? list : list === undefined ? [] : [list]) {
        ctx.declare(variable.text, v);
        await runBlock(body);
      }
      return undefined;
    }
    case 'for': {
      const variable = positional[0];
      if (variable?.kind !== 'word') throw new ScriptError('expected variable name', pos, true);
      const from = toNumber(await valueOf(named('from'))) ?? 0;
      const to = toNumber(await valueOf(named('to'))) ?? 0;
      const step = toNumber(await valueOf(named('step'))) ?? (to >= from ? 1 : -1);
      const body = await blockOf(named('do'));
      if (step === 0) throw new ScriptError('step must not be zero', pos);
      let n = 0;
      for (let v = from; step > 0 ? v <= to : v >= to; v += step) {
        if (++n > MAX_ITERATIONS) throw new ScriptError('too many iterations', pos);
        ctx.declare(variable.text, v);
        await runBlock(body);
      }
      return undefined;
    }
    case 'log': {
      const level = positional[0];
      if (level?.kind !== 'word' || !LOG_LEVELS.has(level.text))
        throw new ScriptError('expected end of command', level?.pos ?? pos, true);
      ctx.sim.state.log(`script,${level.text}`, toText(await valueOf(positional[1])));
      return undefined;
    }
    case 'delay': {
      // a delay is checked but never waited for: tests stay fast
      const text = toText(await valueOf(positional[0]));
      if (text !== '' && !/^\d+$/.test(text) && parseDuration(text) === undefined)
        throw new ScriptError('invalid time value', positional[0]?.pos ?? pos);
      return undefined;
    }
    case 'put': {
      const v = await valueOf(positional[0]);
      ctx.output.push(toText(v));
      return undefined;
    }
    case 'error':
      throw new ScriptError(toText(await valueOf(positional[0])), pos, false, false);
    case 'len':
      return length(await valueOf(positional[0]));
    case 'tostr':
      return toText(await valueOf(positional[0]));
    case 'tonum':
      return toNumber(await valueOf(positional[0]));
    case 'typeof':
      return typeOf(await valueOf(positional[0]));
    case 'pick': {
      const v = await valueOf(positional[0]);
      const start = toNumber(await valueOf(positional[1])) ?? 0;
      const endValue = positional[2] ? toNumber(await valueOf(positional[2])) : undefined;
      if (Array.isArray(v)) return endValue === undefined ? v[start] : v.slice(start, endValue);
      const text = toText(v);
      return endValue === undefined ? text.charAt(start) : text.slice(start, endValue);
    }
    case 'find': {
      const haystack = await valueOf(positional[0]);
      const needle = toText(await valueOf(positional[1]));
      if (Array.isArray(haystack)) {
        const i = haystack.findIndex((v) => toText(v) === needle);
        return i < 0 ? undefined : i;
      }
      const i = toText(haystack).indexOf(needle);
      return i < 0 ? undefined : i;
    }
    case 'toarray': {
      const v = await valueOf(positional[0]);
      if (Array.isArray(v)) return v;
      return toText(v) === '' ? [] : toText(v).split(',');
    }
    case 'nothing':
      return undefined;
    case 'rndstr':
    case 'rndnum': {
      if (!ctx.sim.state.caps.scriptRandom) throw new ScriptError(`bad command name ${name}`, pos, true);
      return name === 'rndstr' ? randomString(ctx) : randomNumber(ctx);
    }
    default:
      throw new ScriptError(`bad command name ${name}`, pos, true);
  }
}

/** `:rndstr from=<characters> length=<count>`: `length` characters drawn from `from`. */
async function randomString(ctx: BuiltinContext): Promise<Value> {
  const fromItem = ctx.named('from');
  const lengthItem = ctx.named('length');
  const from = fromItem ? toText(await ctx.value(fromItem)) : RNDSTR_DEFAULT_FROM;
  const count = lengthItem ? toNumber(await ctx.value(lengthItem)) : RNDSTR_DEFAULT_LENGTH;
  if (count === undefined || count < 0 || !Number.isInteger(count))
    throw new ScriptError('invalid value for argument length', lengthItem?.pos ?? ctx.pos);
  if (from === '') throw new ScriptError('invalid value for argument from', fromItem?.pos ?? ctx.pos);
  // the simulator's seeded source, so a run repeats; a router draws from its own entropy
  return ctx.sim.rng.string(count, from);
}

/** `:rndnum from=<min> to=<max>`: an integer in [from, to]; both are required. */
async function randomNumber(ctx: BuiltinContext): Promise<Value> {
  const fromItem = ctx.named('from');
  const toItem = ctx.named('to');
  if (!fromItem || !toItem) throw new ScriptError('missing value(s) of argument(s) from, to', ctx.pos);
  const min = toNumber(await ctx.value(fromItem));
  const max = toNumber(await ctx.value(toItem));
  if (min === undefined || max === undefined || min > max)
    throw new ScriptError('invalid value for argument to', toItem.pos);
  return ctx.sim.rng.int(min, max);
}
