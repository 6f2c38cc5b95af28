// A bare RouterOS API endpoint for fault tests: logs in like RouterOS 6.43+,
// then hands every command to the test's script, which answers (or not) with
// raw sentences on the real socket.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SentenceDecoder, encodeSentence, sentenceToStrings } from '../../../routeros-sim/api-wire.js';

export interface ScriptedCommand {
  path: string;
  words: string[];
  raw: Buffer[];
  tag: string | undefined;
  attrs: Map<string, string>;
  socket: net.Socket;
  /** Index of the connection (0 for the first one accepted). */
  connection: number;
  /** Sends sentences for this command's tag; the tag goes right after the reply word. */
  reply(...sentences: (string | Buffer)[][]): void;
}

export type CommandScript = (cmd: ScriptedCommand) => void;

export interface ScriptedRouterOptions {
  user?: string;
  password?: string;
  /** When false, /login goes to the script too. */
  handleLogin?: boolean;
}

export function sentenceFor(tag: string | undefined, sentence: readonly (string | Buffer)[]): Buffer {
  const [head, ...rest] = sentence;
  const words =
    head === undefined ? [] : tag === undefined ? [head, ...rest] : [head, `.tag=${tag}`, ...rest];
  return encodeSentence(words);
}

export class ScriptedRouter {
  readonly commands: ScriptedCommand[] = [];
  readonly sockets: net.Socket[] = [];
  private readonly server: net.Server;
  private readonly options: Required<ScriptedRouterOptions>;

  constructor(
    private script: CommandScript,
    options: ScriptedRouterOptions = {},
  ) {
    this.options = { user: 'admin', password: 'secret', handleLogin: true, ...options };
    this.server = net.createServer((socket) => this.accept(socket));
  }

  setScript(script: CommandScript): void {
    this.script = script;
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Commands other than /login and /cancel, in arrival order. */
  get calls(): ScriptedCommand[] {
    return this.commands.filter((c) => c.path !== '/login' && c.path !== '/cancel');
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: net.Socket): void {
    const connection = this.sockets.length;
    this.sockets.push(socket);
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    const decoder = new SentenceDecoder();
    socket.on('data', (chunk: Buffer) => {
      for (const raw of decoder.push(chunk)) {
        if (raw.length === 0) continue;
        const words = sentenceToStrings(raw);
        const attrs = new Map<string, string>();
        let tag: string | undefined;
        for (const w of words.slice(1)) {
          if (w.startsWith('.tag=')) tag = w.slice(5);
          else if (w.startsWith('=')) {
            const eq = w.indexOf('=', 1);
            attrs.set(eq < 0 ? w.slice(1) : w.slice(1, eq), eq < 0 ? '' : w.slice(eq + 1));
          }
        }
        const cmd: ScriptedCommand = {
          path: words[0] ?? '',
          words,
          raw,
          tag,
          attrs,
          socket,
          connection,
          reply: (...sentences) => {
            if (!socket.writable) return;
            socket.write(Buffer.concat(sentences.map((s) => sentenceFor(tag, s))));
          },
        };
        this.commands.push(cmd);
        if (cmd.path === '/login' && this.options.handleLogin) this.login(cmd);
        else this.script(cmd);
      }
    });
  }

  private login(cmd: ScriptedCommand): void {
    if (cmd.attrs.get('name') === this.options.user && cmd.attrs.get('password') === this.options.password) {
      cmd.reply(['!done']);
      return;
    }
    cmd.reply(['!trap', '=message=invalid user name or password (6)'], ['!done']);
    cmd.socket.end();
  }
}

/** A script answering every command with `!done` and nothing else. */
export const answerDone: CommandScript = (cmd) => cmd.reply(['!done']);
