// RouterOS script parser: tokens → statements. The whole script is parsed
// before anything runs, so a syntax error anywhere runs nothing (as on the
// router). Every statement is a command: a list of items (bare words,
// name=value pairs, positional values) that the evaluator resolves against
// the router's menus at run time; `:if`, `:local`… are commands whose first
// word starts with ':'.
import { ScriptSyntaxError, tokenize } from './script-tokenizer.js';
import type { Token, TokenKind } from './script-tokenizer.js';

export interface Pos {
  line: number;
  column: number;
}

export type Expr =
  | { type: 'literal'; text: string; pos: Pos }
  | { type: 'string'; parts: TemplatePart[]; pos: Pos }
  | { type: 'var'; name: string; pos: Pos }
  | { type: 'subst'; command: Command; pos: Pos }
  | { type: 'block'; body: Command[]; source: string; pos: Pos }
  | { type: 'unary'; op: '!'; operand: Expr; pos: Pos }
  | { type: 'binary'; op: string; left: Expr; right: Expr; pos: Pos }
  /** A property of the record being tested (find / print where). */
  | { type: 'prop'; name: string; pos: Pos };

/** Piece of a double-quoted string: text, `$name`, or `$[command]`. */
export type TemplatePart = string | { variable: string } | { command: Command };

export type Item =
  /** Bare word: a path part, the verb, a flag (count-only) or a positional value. */
  | { kind: 'word'; text: string; pos: Pos }
  | { kind: 'named'; name: string; value: Expr | undefined; pos: Pos }
  /** Positional value that is not a bare word ("x", $x, [..], (..), {..}). */
  | { kind: 'value'; value: Expr; pos: Pos }
  /** `where <filter>`, or the arguments of `find` read as a filter. */
  | { kind: 'where'; filter: Expr; pos: Pos };

export interface Command {
  items: Item[];
  pos: Pos;
}

export interface Script {
  body: Command[];
}

const COMPARISONS = new Set(['=', '!=', '<', '>', '<=', '>=', '~']);

export function parseScript(source: string): Script {
  return new Parser(source, tokenize(source)).script();
}

class Parser {
  private i = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  script(): Script {
    const body = this.statements('eof');
    return { body };
  }

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private fail(t: Token, message = 'expected end of command'): never {
    throw new ScriptSyntaxError(message, t.line, t.column);
  }

  private statements(until: '}' | 'eof'): Command[] {
    const out: Command[] = [];
    for (;;) {
      while (this.peek().kind === 'eol') this.next();
      const t = this.peek();
      if (t.kind === until) return out;
      if (t.kind === 'eof') this.fail(t, 'expected closing brace');
      out.push(this.command(['eol', '}', 'eof']));
      const end = this.peek();
      if (end.kind === 'eol') this.next();
      else if (end.kind !== until) this.fail(end);
    }
  }

  private command(ends: TokenKind[]): Command {
    const first = this.peek();
    const items: Item[] = [];
    while (!ends.includes(this.peek().kind)) {
      const t = this.peek();
      const pos = { line: t.line, column: t.column };
      if (t.kind === 'word') {
        const after = this.peek(1);
        if (t.text === 'where') {
          this.next();
          items.push({ kind: 'where', filter: this.filter(ends), pos });
          continue;
        }
        if (after.kind === 'op' && after.text === '=' && !after.spaced) {
          this.next();
          this.next();
          const v = this.peek();
          const value = !v.spaced && !ends.includes(v.kind) && v.kind !== 'eol' ? this.argValue() : undefined;
          items.push({ kind: 'named', name: t.text, value, pos });
          continue;
        }
        this.next();
        items.push({ kind: 'word', text: t.text, pos });
        // `find a=b c~"d"` takes filter conditions, with or without `where`
        if (t.text === 'find' && !ends.includes(this.peek().kind)) {
          const w = this.peek();
          if (w.kind === 'word' && w.text === 'where') this.next();
          items.push({ kind: 'where', filter: this.filter(ends), pos: { line: w.line, column: w.column } });
        }
        continue;
      }
      if (t.kind === 'op' || t.kind === '}' || t.kind === ']' || t.kind === ')') this.fail(t);
      items.push({ kind: 'value', value: this.atom(), pos });
    }
    return { items, pos: { line: first.line, column: first.column } };
  }

  /** Value after `name=`: one atom, or adjacent words and operators joined (1M/2M, !local). */
  private argValue(): Expr {
    const t = this.peek();
    if (t.kind !== 'word' && t.kind !== 'op') return this.atom();
    let text = '';
    do text += this.next().text;
    while ((this.peek().kind === 'word' || this.peek().kind === 'op') && !this.peek().spaced);
    return { type: 'literal', text, pos: { line: t.line, column: t.column } };
  }

  private atom(): Expr {
    const t = this.next();
    const pos = { line: t.line, column: t.column };
    switch (t.kind) {
      case 'string':
        return { type: 'string', parts: (t.parts ?? [t.text]).map((p) => this.templatePart(p)), pos };
      case 'var':
        return { type: 'var', name: t.text, pos };
      case 'word':
        return { type: 'literal', text: t.text, pos };
      case '[': {
        const command = this.command([']']);
        this.expect(']', 'expected closing bracket');
        return { type: 'subst', command, pos };
      }
      case '(': {
        const inner = this.expression(false, [')']);
        this.expect(')', 'expected closing parenthesis');
        return inner;
      }
      case '{': {
        const body = this.statements('}');
        const close = this.expect('}', 'expected closing brace');
        return { type: 'block', body, source: this.source.slice(t.offset + 1, close.offset), pos };
      }
      default:
        return this.fail(t);
    }
  }

  private templatePart(part: NonNullable<Token['parts']>[number]): TemplatePart {
    if (typeof part === 'string' || 'variable' in part) return part;
    try {
      const [command] = parseScript(part.command).body;
      return { command: command ?? { items: [], pos: { line: part.line, column: part.column } } };
    } catch (err) {
      // report the inner error where the $[...] stands
      if (err instanceof ScriptSyntaxError) throw new ScriptSyntaxError(err.message, part.line, part.column);
      throw err;
    }
  }

  private expect(kind: TokenKind, message: string): Token {
    const t = this.peek();
    if (t.kind !== kind) this.fail(t, message);
    return this.next();
  }

  // ---- expressions ----------------------------------------------------------

  private filter(ends: TokenKind[]): Expr {
    return this.expression(true, ends);
  }

  /** In filter mode a bare word names a property and conditions side by side are ANDed. */
  private expression(filter: boolean, ends: TokenKind[]): Expr {
    return this.or(filter, ends);
  }

  private isWord(t: Token, ...texts: string[]): boolean {
    return t.kind === 'word' && texts.includes(t.text);
  }

  private or(filter: boolean, ends: TokenKind[]): Expr {
    let left = this.and(filter, ends);
    for (;;) {
      const t = this.peek();
      if (!((t.kind === 'op' && t.text === '||') || this.isWord(t, 'or'))) return left;
      this.next();
      const right = this.and(filter, ends);
      left = { type: 'binary', op: '||', left, right, pos: left.pos };
    }
  }

  private and(filter: boolean, ends: TokenKind[]): Expr {
    let left = this.not(filter, ends);
    for (;;) {
      const t = this.peek();
      if ((t.kind === 'op' && t.text === '&&') || this.isWord(t, 'and')) this.next();
      else if (!filter || ends.includes(t.kind) || t.kind === 'eol' || (t.kind === 'op' && t.text === '||'))
        return left;
      else if (this.isWord(t, 'or')) return left;
      const right = this.not(filter, ends);
      left = { type: 'binary', op: '&&', left, right, pos: left.pos };
    }
  }

  private not(filter: boolean, ends: TokenKind[]): Expr {
    const t = this.peek();
    if ((t.kind === 'op' && t.text === '!') || this.isWord(t, 'not')) {
      this.next();
      const operand = this.not(filter, ends);
      return { type: 'unary', op: '!', operand, pos: { line: t.line, column: t.column } };
    }
    return this.comparison(filter, ends);
  }

  private comparison(filter: boolean, ends: TokenKind[]): Expr {
    const left = this.concat(filter, ends);
    const t = this.peek();
    const asProp = (e: Expr): Expr =>
      filter && e.type === 'literal' ? { type: 'prop', name: e.text, pos: e.pos } : e;
    if (t.kind === 'op' && COMPARISONS.has(t.text)) {
      this.next();
      // an unquoted right-hand side is a literal value: name=hsprof1, rate-limit=1M/2M
      const right = filter && this.peek().kind === 'word' ? this.argValue() : this.concat(filter, ends);
      return { type: 'binary', op: t.text, left: asProp(left), right, pos: left.pos };
    }
    return asProp(left);
  }

  private concat(filter: boolean, ends: TokenKind[]): Expr {
    let left = this.additive(filter, ends);
    while (this.isWord(this.peek(), '.')) {
      this.next();
      const right = this.additive(filter, ends);
      left = { type: 'binary', op: '.', left, right, pos: left.pos };
    }
    return left;
  }

  private additive(filter: boolean, ends: TokenKind[]): Expr {
    let left = this.primary(ends);
    while (this.isWord(this.peek(), '+', '-', '*', '/')) {
      const op = this.next().text;
      const right = this.primary(ends);
      left = { type: 'binary', op, left, right, pos: left.pos };
    }
    return left;
  }

  private primary(ends: TokenKind[]): Expr {
    const t = this.peek();
    if (ends.includes(t.kind) || t.kind === 'eol' || t.kind === 'op' || t.kind === '}')
      this.fail(t, 'syntax error');
    return this.atom();
  }
}
