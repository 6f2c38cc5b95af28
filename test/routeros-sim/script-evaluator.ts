// Runs parsed RouterOS script: variables, :if/:do/:foreach/:for/:while,
// :log/:put/:delay/:error, value functions (:len, :pick...) and menu
// commands (add/set/remove/find/print/get... through the API handlers).
// Nothing is rolled back when a command fails, as on the router.
import type { SimContext } from './command-types.js';
import { formatId, parseId } from './ros-format.js';
import { runBuiltin } from './script-builtins.js';
import type { BuiltinContext } from './script-builtins.js';
import type { RecordView } from './query-filter.js';
import {
  ScriptError,
  commandExists,
  invokeCommand,
  pathTree,
  splitCommandLine,
} from './script-menu-bridge.js';
import type { Command, Expr, Item, Pos } from './script-parser.js';
import {
  CodeBlock,
  RosId,
  arithmetic,
  compare,
  isTrue,
  toArgument,
  toNumber,
  toText,
} from './script-values.js';
import type { Value } from './script-values.js';

/** Bare words that are switches of a command rather than a positional value. */
const FLAGS = new Set([
  'count-only',
  'as-value',
  'detail',
  'terse',
  'brief',
  'without-paging',
  'follow',
  'follow-only',
  'stats',
  'verbose',
  'value-list',
]);

/** Verbs whose first positional argument names the items (`set [find] x=y`). */
const ITEM_VERBS = new Set([
  'set',
  'remove',
  'enable',
  'disable',
  'comment',
  'get',
  'unset',
  'run',
  'make-static',
  'start',
  'stop',
]);

/** The unnamed argument of some commands: `/import file.rsc`, `/ping 8.8.8.8`, `/log info "x"`. */
const UNNAMED_ARG: Readonly<Record<string, string>> = {
  '/import': 'file-name',
  '/ping': 'address',
  '/tool/ping': 'address',
  '/log/info': 'message',
  '/log/warning': 'message',
  '/log/error': 'message',
  '/log/debug': 'message',
};

class Frame {
  private readonly vars = new Map<string, Value>();

  constructor(readonly parent?: Frame) {}

  find(name: string): Frame | undefined {
    if (this.vars.has(name)) return this;
    return this.parent?.find(name);
  }

  get(name: string): Value {
    return this.vars.get(name);
  }

  define(name: string, value: Value): void {
    this.vars.set(name, value);
  }
}

/** Block-level context: variables and the menu relative commands run in. */
interface Scope {
  frame: Frame;
  menu: string;
}

export class ScriptEvaluator {
  readonly output: string[] = [];
  private readonly tree: Set<string>;

  constructor(private readonly sim: SimContext) {
    this.tree = pathTree(sim);
  }

  async run(body: Command[]): Promise<void> {
    await this.block(body, { frame: new Frame(), menu: '' });
  }

  private async block(body: Command[], parent: Scope): Promise<Value> {
    const scope: Scope = { frame: new Frame(parent.frame), menu: parent.menu };
    let last: Value;
    for (const cmd of body) last = await this.command(cmd, scope);
    return last;
  }

  private async command(cmd: Command, scope: Scope): Promise<Value> {
    const [first] = cmd.items;
    if (!first) return undefined;
    if (first.kind === 'value' && first.value.type === 'block' && cmd.items.length === 1) {
      return this.block(first.value.body, scope);
    }
    if (first.kind === 'word' && first.text.startsWith(':')) {
      return this.builtin(first.text.slice(1), cmd.items.slice(1), scope, first.pos);
    }
    return this.menuCommand(cmd, scope);
  }

  // ---- builtins --------------------------------------------------------------

  private builtin(name: string, args: Item[], scope: Scope, pos: Pos): Promise<Value> {
    const ctx: BuiltinContext = {
      sim: this.sim,
      output: this.output,
      pos,
      positional: args.filter((a) => a.kind === 'word' || a.kind === 'value'),
      named: (key) => args.find((a) => a.kind === 'named' && a.name === key),
      value: async (item) => (item ? this.item(item, scope) : undefined),
      run: async (block) => (block ? this.block(block.body, scope) : undefined),
      declare: (variable, value) => scope.frame.define(variable, value),
      assign: (variable, value) => {
        const owner = scope.frame.find(variable);
        if (owner) owner.define(variable, value);
        else if (this.sim.state.globals.has(variable)) this.sim.state.globals.set(variable, value);
        else scope.frame.define(variable, value);
      },
    };
    return runBuiltin(name, ctx);
  }

  // ---- menu commands ---------------------------------------------------------

  private async menuCommand(cmd: Command, scope: Scope): Promise<Value> {
    const line = splitCommandLine(this.sim, this.tree, cmd.items, scope.menu);
    if (line.kind === 'menu') {
      scope.menu = line.path;
      return undefined;
    }
    const { menu, verb, verbPos, args } = line;
    if (!commandExists(this.sim, menu, verb))
      throw new ScriptError(`bad command name ${verb}`, verbPos, true);
    if (verb === 'find') return this.find(menu, args, { frame: scope.frame, menu });

    const path = verb === undefined ? menu : `${menu}/${verb}`;
    const table = this.sim.state.menu(menu);
    // [find ...] inside the arguments searches the command's own menu
    const argScope: Scope = { frame: scope.frame, menu };
    const attrs = new Map<string, string>();
    const positional: Array<{ value: Value; pos: Pos }> = [];
    let where: Expr | undefined;
    for (const item of args) {
      if (item.kind === 'where') where = item.filter;
      else if (item.kind === 'word' && FLAGS.has(item.text)) attrs.set(item.text, '');
      else if (item.kind === 'named') {
        if (table && !isKnownArgument(table.def.props, item.name))
          throw new ScriptError('expected end of command', item.pos, true);
        attrs.set(item.name, toArgument(item.value ? await this.expr(item.value, argScope) : ''));
      } else positional.push({ value: await this.item(item, argScope), pos: item.pos });
    }

    const unnamed = UNNAMED_ARG[path];
    if (unnamed) {
      const arg = positional.shift();
      if (arg) attrs.set(unnamed, toArgument(arg.value));
    } else if (verb !== undefined && ITEM_VERBS.has(verb) && !table?.def.singleton) {
      const target = positional.shift();
      if (target) {
        const ids = toArgument(target.value);
        // RouterOS: `remove [find ...]` with nothing found does nothing
        if (ids === '' && verb !== 'get') return undefined;
        attrs.set('numbers', ids);
      }
    }
    if ((verb === 'get' || verb === 'unset') && positional[0]) {
      attrs.set('value-name', toArgument(positional.shift()?.value));
    }
    const extra = positional.shift();
    if (extra) throw new ScriptError('expected end of command', extra.pos, true);

    const req = {
      path,
      attrs,
      queries: [] as string[],
      where: undefined as ((v: RecordView) => boolean) | undefined,
    };
    if (where && table) {
      const ids = new Set((await this.matching(menu, where, argScope)).map((id) => formatId(id.id)));
      req.where = (view) => ids.has(view['.id'] ?? '');
    }
    const { result } = await invokeCommand(this.sim, req, cmd.pos);
    const ret = result ? result.ret : undefined;
    if (verb === 'add' && ret !== undefined) {
      const id = parseId(ret);
      return id === undefined ? ret : new RosId(id);
    }
    if (verb === 'print' && attrs.has('count-only')) return toNumber(ret ?? '0');
    return ret;
  }

  private async find(menu: string, args: Item[], scope: Scope): Promise<Value> {
    const filter = args.find((a) => a.kind === 'where');
    const extra = args.find((a) => a.kind !== 'where');
    if (extra) throw new ScriptError('expected end of command', extra.pos, true);
    const failure = this.sim.faults.failureFor(`${menu}/find`);
    if (failure) throw new ScriptError(failure.message, args[0]?.pos ?? { line: 0, column: 0 });
    return this.matching(menu, filter?.kind === 'where' ? filter.filter : undefined, scope);
  }

  private async matching(menu: string, filter: Expr | undefined, scope: Scope): Promise<RosId[]> {
    const table = this.sim.state.table(menu);
    const out: RosId[] = [];
    for (const rec of table.list()) {
      const view = this.sim.state.view(table, rec);
      if (!filter || isTrue(await this.expr(filter, scope, view))) out.push(new RosId(rec.id));
    }
    return out;
  }

  // ---- expressions -------------------------------------------------------------

  private async item(item: Item, scope: Scope): Promise<Value> {
    switch (item.kind) {
      case 'word':
        return item.text;
      case 'value':
        return this.expr(item.value, scope);
      case 'named':
        return item.value ? this.expr(item.value, scope) : undefined;
      default:
        return this.expr(item.filter, scope);
    }
  }

  private async expr(e: Expr, scope: Scope, record?: RecordView): Promise<Value> {
    switch (e.type) {
      case 'literal':
        return e.text;
      case 'string': {
        let out = '';
        for (const part of e.parts) {
          if (typeof part === 'string') out += part;
          else if ('variable' in part) out += toText(this.variable(part.variable, scope));
          else out += toText(await this.command(part.command, scope));
        }
        return out;
      }
      case 'var':
        return this.variable(e.name, scope);
      case 'subst':
        return this.command(e.command, scope);
      case 'block':
        return new CodeBlock(e.body, e.source);
      case 'prop':
        if (!record) return e.name;
        return record[e.name] === undefined ? undefined : record[e.name];
      case 'unary':
        return !isTrue(await this.expr(e.operand, scope, record));
      case 'binary': {
        if (e.op === '&&' || e.op === '||') {
          const left = isTrue(await this.expr(e.left, scope, record));
          if (e.op === '&&' ? !left : left) return left;
          return isTrue(await this.expr(e.right, scope, record));
        }
        const left = await this.expr(e.left, scope, record);
        const right = await this.expr(e.right, scope, record);
        if (['+', '-', '*', '/', '.'].includes(e.op)) return arithmetic(e.op, left, right);
        return compare(e.op, left, right);
      }
    }
  }

  private variable(name: string, scope: Scope): Value {
    const owner = scope.frame.find(name);
    if (owner) return owner.get(name);
    return this.sim.state.globals.get(name);
  }
}

/** Named arguments every command accepts besides the menu's properties. */
const ALWAYS_KNOWN = new Set([
  'numbers',
  'number',
  '.id',
  'value-name',
  'proplist',
  'interval',
  'file',
  'copy-from',
]);

function isKnownArgument(props: readonly string[] | undefined, name: string): boolean {
  if (!props) return true;
  return props.includes(name) || ALWAYS_KNOWN.has(name) || FLAGS.has(name);
}
