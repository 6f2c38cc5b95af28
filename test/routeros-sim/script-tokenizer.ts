// RouterOS script tokenizer. Turns source text into tokens carrying their
// line and column (1-based), so every error can name where it happened the
// way RouterOS does ("expected end of command (line 3 column 12)").
//
// RouterOS syntax is context sensitive (an unquoted value like 1M/2M or
// 10.0.0.1/24 is one word), so words are wide here and the parser re-joins
// adjacent tokens (no whitespace between them) where a value is expected.

export type TokenKind = 'word' | 'string' | 'var' | 'op' | '{' | '}' | '[' | ']' | '(' | ')' | 'eol' | 'eof';

/** Literal text, a `$name` reference or a `$[command]` inside a double-quoted string. */
export type StringPart = string | { variable: string } | { command: string; line: number; column: number };

export interface Token {
  kind: TokenKind;
  /** Word text, operator, variable name, or the decoded string (variables left as `$name`). */
  text: string;
  line: number;
  column: number;
  /** Character offset of the token in the source (code blocks keep their source text). */
  offset: number;
  /** Whitespace (or a line continuation) precedes the token. */
  spaced: boolean;
  /** String tokens: literal parts and variable references, for interpolation. */
  parts?: StringPart[];
}

export class ScriptSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

const OPERATORS = ['&&', '||', '!=', '<=', '>=', '=', '<', '>', '~', '!'] as const;
const WORD_STOP = new Set([...' \t\r\n"$[]{}();=<>!~']);
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  n: '\n',
  r: '\r',
  t: '\t',
  $: '$',
  '?': '?',
  _: ' ',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // open delimiters: newlines end a command only at top level or directly inside { }
  const nesting: Array<'{' | '[' | '('> = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let spaced = true;

  const column = (at: number): number => at - lineStart + 1;
  const push = (kind: TokenKind, text: string, start: number, startLine: number, startCol: number): void => {
    tokens.push({ kind, text, line: startLine, column: startCol, offset: start, spaced });
    spaced = false;
  };
  const atStatementStart = (): boolean => {
    const last = tokens.at(-1);
    return last === undefined || last.kind === 'eol' || last.kind === '{';
  };

  while (i < source.length) {
    const c = source[i] as string;
    const col = column(i);
    if (c === '\\' && (source[i + 1] === '\n' || (source[i + 1] === '\r' && source[i + 2] === '\n'))) {
      // line continuation: the command goes on on the next line
      i += source[i + 1] === '\r' ? 3 : 2;
      line++;
      lineStart = i;
      spaced = true;
      continue;
    }
    if (c === '\n' || c === ';') {
      const top = nesting.at(-1);
      if (top === undefined || top === '{') {
        if (tokens.at(-1)?.kind !== 'eol') push('eol', c, i, line, col);
      }
      i++;
      if (c === '\n') {
        line++;
        lineStart = i;
      }
      spaced = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      spaced = true;
      continue;
    }
    if (c === '#' && atStatementStart()) {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '{' || c === '[' || c === '(') {
      nesting.push(c);
      push(c, c, i, line, col);
      i++;
      continue;
    }
    if (c === '}' || c === ']' || c === ')') {
      const open = nesting.pop();
      const expected = c === '}' ? '{' : c === ']' ? '[' : '(';
      if (open !== expected) {
        const what = c === '}' ? 'brace' : c === ']' ? 'bracket' : 'parenthesis';
        throw new ScriptSyntaxError(`unexpected closing ${what}`, line, col);
      }
      push(c, c, i, line, col);
      i++;
      continue;
    }
    if (c === '"') {
      const start = i;
      const startLine = line;
      const parts: StringPart[] = [];
      let literal = '';
      i++;
      for (;;) {
        if (i >= source.length) throw new ScriptSyntaxError('unterminated string', line, col);
        const ch = source[i] as string;
        if (ch === '"') break;
        if (ch === '\\') {
          const next = source[i + 1] ?? '';
          if (next === '\n') {
            i += 2;
            line++;
            lineStart = i;
            continue;
          }
          const hex = /^[0-9A-Fa-f]{2}/.exec(source.slice(i + 1, i + 3));
          if (ESCAPES[next] !== undefined) {
            literal += ESCAPES[next];
            i += 2;
          } else if (hex) {
            literal += String.fromCharCode(parseInt(hex[0], 16));
            i += 3;
          } else {
            throw new ScriptSyntaxError('invalid escape sequence', line, column(i));
          }
          continue;
        }
        if (ch === '$' && source[i + 1] === '[') {
          const end = closingBracket(source, i + 1);
          if (end < 0) throw new ScriptSyntaxError('expected closing bracket', line, column(i));
          if (literal) parts.push(literal);
          literal = '';
          parts.push({ command: source.slice(i + 2, end), line, column: column(i + 2) });
          i = end + 1;
          continue;
        }
        if (ch === '$') {
          const name = readVariableName(source, i + 1);
          if (name) {
            if (literal) parts.push(literal);
            literal = '';
            parts.push({ variable: name.name });
            i = name.end;
            continue;
          }
        }
        if (ch === '\n') {
          line++;
          lineStart = i + 1;
        }
        literal += ch;
        i++;
      }
      i++;
      if (literal || parts.length === 0) parts.push(literal);
      const text = parts
        .map((p) => (typeof p === 'string' ? p : 'variable' in p ? `$${p.variable}` : `$[${p.command}]`))
        .join('');
      tokens.push({ kind: 'string', text, line: startLine, column: col, offset: start, spaced, parts });
      spaced = false;
      continue;
    }
    if (c === '$') {
      const name = readVariableName(source, i + 1);
      if (!name) throw new ScriptSyntaxError('expected variable name', line, col);
      push('var', name.name, i, line, col);
      i = name.end;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op) {
      push('op', op, i, line, col);
      i += op.length;
      continue;
    }
    const start = i;
    while (i < source.length && !WORD_STOP.has(source[i] as string)) {
      if (source.startsWith('&&', i) || source.startsWith('||', i)) break;
      i++;
    }
    push('word', source.slice(start, i), start, line, col);
  }
  if (nesting.length > 0) {
    const open = nesting.at(-1);
    const what = open === '{' ? 'brace' : open === '[' ? 'bracket' : 'parenthesis';
    throw new ScriptSyntaxError(`expected closing ${what}`, line, column(i));
  }
  tokens.push({ kind: 'eof', text: '', line, column: column(i), offset: i, spaced: true });
  return tokens;
}

/** Index of the `]` closing the `[` at `open`, skipping nested brackets and quoted strings; -1 if none. */
function closingBracket(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '"') {
      for (i++; i < source.length && source[i] !== '"'; i++) if (source[i] === '\\') i++;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

/** `$name` or `$"name with spaces"`; undefined when no name follows the `$`. */
function readVariableName(source: string, from: number): { name: string; end: number } | undefined {
  if (source[from] === '"') {
    const close = source.indexOf('"', from + 1);
    if (close < 0) return undefined;
    return { name: source.slice(from + 1, close), end: close + 1 };
  }
  const m = /^[A-Za-z0-9_-]+/.exec(source.slice(from, from + 256));
  return m ? { name: m[0], end: from + m[0].length } : undefined;
}
