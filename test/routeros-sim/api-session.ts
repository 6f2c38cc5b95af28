// One API connection: decodes sentences, handles login, tags, /cancel and
// /quit, runs commands concurrently, and applies the connection faults
// (delay, silent drop, reset, fatal, noise; fragmentation is in ReplyWriter).
import { createHash, randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { SentenceDecoder, encodeSentence } from './api-wire.js';
import { RosTrap, pause } from './command-types.js';
import type { CommandContext, CommandRequest, ReplyProps, SimContext } from './command-types.js';
import { resolveCommand } from './command-dispatcher.js';
import { ReplyWriter } from './reply-writer.js';
import { authenticate } from './user-accounts.js';
import { decodeWin1252 } from './win1252.js';

const LOGIN_FAILED = 'invalid user name or password (6)';
/** Reply words no RouterOS client knows, for the noise fault. */
const UNKNOWN_REPLY_WORDS = ['!notice', '!status', '!progress'];

export class ApiSession {
  private readonly decoder = new SentenceDecoder();
  private loggedIn = false;
  private challenge: Buffer | undefined;
  /** Set once a drop fault hit this connection: it never speaks again. */
  private dropped = false;
  private closed = false;
  /** A !fatal went out: nothing more is said on this connection. */
  private ending = false;
  /** Running commands by tag ('' for untagged), for /cancel. */
  private readonly running = new Map<string, AbortController>();
  private readonly writer: ReplyWriter;

  constructor(
    private readonly socket: Socket,
    private readonly sim: SimContext,
  ) {
    this.writer = new ReplyWriter(socket, sim.faults, sim.rng);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // the server runs with allowHalfOpen so a "powered off" router can leave the FIN unanswered
    socket.on('end', () => {
      if (!this.isSilent()) this.writer.end();
    });
    socket.on('close', () => this.onClose());
    socket.on('error', () => {
      /* client vanished; 'close' follows */
    });
  }

  private isSilent(): boolean {
    return this.dropped || this.sim.faults.silent;
  }

  private onClose(): void {
    this.closed = true;
    for (const ac of this.running.values()) ac.abort();
    this.running.clear();
  }

  private onData(chunk: Buffer): void {
    let sentences: Buffer[][];
    try {
      sentences = this.decoder.push(chunk);
    } catch {
      this.socket.destroy();
      return;
    }
    for (const words of sentences) if (words.length > 0) this.onSentence(words);
  }

  private onSentence(words: Buffer[]): void {
    if (this.dropped || this.ending) return;
    const verdict = this.sim.faults.onCommand();
    if (verdict === 'drop') {
      this.dropped = true;
      return;
    }
    if (verdict === 'reset') {
      this.socket.resetAndDestroy();
      return;
    }
    if (verdict === 'fatal') {
      // !fatal carries no tag: it ends the whole session
      this.shutdown(this.sim.faults.active.fatal ?? 'session terminated');
      return;
    }
    const req = parseRequest(words);
    void this.execute(req);
  }

  private async execute(req: CommandRequest): Promise<void> {
    const delay = this.sim.faults.active.delayMs ?? 0;
    if (delay > 0) await pause(delay);
    if (this.closed) return;
    if (req.path === '/login') return this.login(req);
    if (!this.loggedIn) {
      this.trap(req.tag, new RosTrap('not logged in'));
      return;
    }
    if (req.path === '/quit') {
      this.shutdown('session terminated on request');
      return;
    }
    if (req.path === '/cancel') return this.cancel(req);
    // node-routeros keeps idle connections alive with a bare "#" sentence
    if (!req.path.startsWith('/')) {
      this.reply('!done', req.tag);
      return;
    }
    const failure = this.sim.faults.failureFor(req.path);
    if (failure) {
      this.trap(req.tag, new RosTrap(failure.message, failure.category));
      return;
    }
    if (this.sim.faults.itemGoneFor(req.path)) this.removeNamedItems(req);
    await this.run(req);
  }

  /** The itemGone fault: what the command names leaves its menu first, so the command finds nothing. */
  private removeNamedItems(req: CommandRequest): void {
    const table = this.sim.state.menu(req.path.slice(0, req.path.lastIndexOf('/')));
    if (!table) return;
    for (const ref of (req.attrs.get('.id') ?? req.attrs.get('numbers') ?? '').split(',')) {
      const rec = table.resolve(ref);
      if (rec) table.delete(rec);
    }
  }

  private async run(req: CommandRequest): Promise<void> {
    const key = req.tag ?? '';
    const ac = new AbortController();
    this.running.set(key, ac);
    let finished = false;
    const finish = (): boolean => {
      if (finished) return false;
      finished = true;
      if (this.running.get(key) === ac) this.running.delete(key);
      return true;
    };
    ac.signal.addEventListener('abort', () => {
      // /cancel: the cancelled command ends with "interrupted", as RouterOS does
      if (finish()) {
        this.reply('!trap', req.tag, { category: '2', message: 'interrupted' });
        this.reply('!done', req.tag);
      }
    });
    const ctx: CommandContext = {
      req,
      sim: this.sim,
      signal: ac.signal,
      re: (props: ReplyProps) => {
        if (!finished) this.reply('!re', req.tag, props);
      },
      empty: () => {
        if (!finished) this.reply('!empty', req.tag);
      },
    };
    try {
      const handler = resolveCommand(this.sim.state, req.path);
      const result = await handler(ctx);
      if (finish()) this.reply('!done', req.tag, result ?? undefined);
    } catch (err) {
      if (!finish()) return;
      this.trap(req.tag, err instanceof RosTrap ? err : new RosTrap(String((err as Error).message ?? err)));
    }
  }

  private cancel(req: CommandRequest): void {
    const target = req.attrs.get('tag');
    if (target === undefined) {
      for (const ac of [...this.running.values()]) ac.abort();
    } else {
      this.running.get(target)?.abort();
    }
    this.reply('!done', req.tag);
  }

  private login(req: CommandRequest): void {
    const name = req.attrs.get('name');
    const given = req.attrs.get('password');
    const response = req.attrs.get('response');
    if (name === undefined && given === undefined && response === undefined) {
      // pre-6.43 challenge/response, still accepted by newer routers
      this.challenge = randomBytes(16);
      this.reply('!done', req.tag, { ret: this.challenge.toString('hex') });
      return;
    }
    // any enabled /user whose group has the api policy, as on the router
    const challenge = this.challenge;
    const ok =
      authenticate(this.sim.state, name, 'api', (password) => {
        if (response === undefined) return given === password;
        if (!challenge) return false;
        const expected =
          '00' +
          createHash('md5')
            .update(Buffer.concat([Buffer.from([0]), Buffer.from(password, 'latin1'), challenge]))
            .digest('hex');
        return response === expected;
      }) !== undefined;
    if (ok) {
      this.loggedIn = true;
      this.reply('!done', req.tag);
      return;
    }
    this.trap(req.tag, new RosTrap(LOGIN_FAILED));
    // the router drops the connection after a failed login
    this.writer.end();
  }

  /** Unsolicited `!fatal`, then the router closes the connection (reboot, shutdown, /quit). */
  shutdown(message: string): void {
    this.send(['!fatal', message]);
    this.ending = true;
    this.writer.end();
  }

  private trap(tag: string | undefined, err: RosTrap): void {
    const props: Record<string, string> = {};
    if (err.category !== undefined) props.category = String(err.category);
    props.message = err.message;
    this.reply('!trap', tag, props);
    this.reply('!done', tag);
  }

  private reply(kind: string, tag: string | undefined, props?: ReplyProps): void {
    if (this.loggedIn) this.maybeNoise(tag);
    const words: (string | Buffer)[] = [kind];
    if (tag !== undefined) words.push(`.tag=${tag}`);
    for (const [k, v] of Object.entries(props ?? {})) {
      words.push(typeof v === 'string' ? `=${k}=${v}` : Buffer.concat([Buffer.from(`=${k}=`, 'latin1'), v]));
    }
    this.send(words);
    if (kind === '!done' && this.loggedIn) this.sim.faults.onCommandAnswered();
  }

  /** noise fault: a reply on a tag nobody sent, or a reply word no client knows. */
  private maybeNoise(tag: string | undefined): void {
    const chance = this.sim.faults.noiseChance();
    const { rng } = this.sim;
    if (chance <= 0 || !rng.chance(chance)) return;
    if (rng.chance(0.5)) {
      let stranger = `n${rng.int(1000, 9999)}`;
      while (this.running.has(stranger)) stranger += 'x';
      this.send(['!re', `.tag=${stranger}`, '=.id=*FFFF', '=noise=yes']);
    } else {
      const word = rng.pick(UNKNOWN_REPLY_WORDS);
      this.send(
        tag !== undefined && rng.chance(0.5) ? [word, `.tag=${tag}`, '=noise=yes'] : [word, '=noise=yes'],
      );
    }
  }

  private send(words: (string | Buffer)[]): void {
    if (this.closed || this.ending || this.isSilent() || !this.socket.writable) return;
    this.writer.write(encodeSentence(words));
  }

  /** Ends the connection from the simulator side (stop()). */
  destroy(): void {
    this.socket.destroy();
  }
}

export function parseRequest(words: readonly Buffer[]): CommandRequest {
  const [first, ...rest] = words;
  const req: CommandRequest = {
    path: first ? decodeWin1252(first) : '',
    attrs: new Map(),
    queries: [],
  };
  for (const raw of rest) {
    const word = decodeWin1252(raw);
    if (word.startsWith('.tag=')) {
      // an empty tag is no tag: the router answers without any .tag word
      const tag = word.slice(5);
      if (tag !== '') req.tag = tag;
    } else if (word.startsWith('?')) req.queries.push(word.slice(1));
    else if (word.startsWith('=') || word.startsWith('.proplist=')) {
      const body = word.startsWith('=') ? word.slice(1) : word;
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const value = eq < 0 ? '' : body.slice(eq + 1);
      if (name === '.proplist') req.proplist = value.split(',').filter(Boolean);
      else req.attrs.set(name, value);
    }
  }
  return req;
}
