// Shared helpers for the simulator tests: start a simulator, connect
// node-routeros, talk raw wire, fetch a file by FTP.
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { RouterOSAPI } from 'node-routeros';
import { SentenceDecoder, encodeSentence, sentenceToStrings } from '../../routeros-sim/api-wire.js';
import { RouterSim } from '../../routeros-sim/router-sim.js';
import type { RouterSimOptions } from '../../routeros-sim/router-sim.js';

export const SERIAL = 'AC40A1B2C3D4';

export async function startSim(options: Partial<RouterSimOptions> = {}): Promise<RouterSim> {
  const sim = new RouterSim({
    serial: SERIAL,
    version: '7.19',
    password: 'secret',
    seed: { hotspotUsers: 12, salesScripts: 6 },
    ...options,
  });
  await sim.start();
  return sim;
}

export async function connectApi(
  sim: RouterSim,
  extra: { password?: string; timeout?: number } = {},
): Promise<RouterOSAPI> {
  const api = new RouterOSAPI({
    host: '127.0.0.1',
    port: sim.port,
    user: 'admin',
    password: extra.password ?? 'secret',
    timeout: extra.timeout ?? 5,
  });
  await api.connect();
  return api;
}

/** Resolves with the promise's value, or 'pending' if it has not settled after `ms`. */
export async function settledWithin<T>(p: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A raw wire client built on api-wire.ts, to assert exact sentences and bytes. */
export class RawClient {
  private readonly decoder = new SentenceDecoder();
  private readonly queue: Buffer[][] = [];
  private waiters: Array<() => void> = [];
  ended = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.queue.push(...this.decoder.push(chunk));
      this.wake();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('error', () => {
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }

  static async open(port: number): Promise<RawClient> {
    const socket = netConnect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawClient(socket);
  }

  static async login(port: number, password = 'secret'): Promise<RawClient> {
    const c = await RawClient.open(port);
    const reply = await c.command(['/login', '=name=admin', `=password=${password}`, '.tag=login'], 'login');
    if (reply.at(-1)?.[0] !== '!done' || reply.length !== 1)
      throw new Error(`login failed: ${JSON.stringify(reply)}`);
    return c;
  }

  send(words: (string | Buffer)[]): void {
    this.socket.write(encodeSentence(words));
  }

  /** Next sentence as raw words (rejects after 2 s). */
  async next(timeoutMs = 2000): Promise<Buffer[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.ended) throw new Error('connection ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no sentence within timeout');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.queue.shift() as Buffer[];
  }

  /** Sends a tagged command and returns its sentences (as strings) up to its !done. */
  async command(words: string[], tag: string): Promise<string[][]> {
    this.send(words);
    const out: string[][] = [];
    for (;;) {
      const s = sentenceToStrings(await this.next());
      if (!s.includes(`.tag=${tag}`)) continue;
      out.push(s);
      if (s[0] === '!done') return out;
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Minimal passive FTP client: logs in and runs RETR or STOR. */
export async function ftpTransfer(
  port: number,
  op: { retr: string } | { stor: string; data: Buffer },
  user = 'admin',
  pass = 'secret',
): Promise<{ data?: Buffer; replies: string[] }> {
  const ctrl = netConnect(port, '127.0.0.1');
  const replies: string[] = [];
  let buf = '';
  const waiters: Array<() => void> = [];
  ctrl.on('data', (c: Buffer) => {
    buf += c.toString('latin1');
    let nl: number;
    while ((nl = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 2);
      // multi-line replies ("211-...") end on the line with a space after the code
      if (/^\d{3} /.test(line)) replies.push(line);
      waiters.shift()?.();
    }
  });
  let seen = 0;
  const reply = async (): Promise<string> => {
    while (replies.length <= seen) await new Promise<void>((r) => waiters.push(r));
    return replies[seen++] as string;
  };
  const cmd = async (line: string): Promise<string> => {
    ctrl.write(`${line}\r\n`);
    return reply();
  };
  await reply(); // 220 banner
  await cmd(`USER ${user}`);
  const pass230 = await cmd(`PASS ${pass}`);
  if (!pass230.startsWith('230')) {
    ctrl.destroy();
    return { replies };
  }
  await cmd('TYPE I');
  const pasv = await cmd('PASV');
  const m = /\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)/.exec(pasv);
  if (!m) throw new Error(`bad PASV reply ${pasv}`);
  const dataPort = Number(m[5]) * 256 + Number(m[6]);
  const data = netConnect(dataPort, '127.0.0.1');
  const chunks: Buffer[] = [];
  const dataDone = new Promise<void>((resolve) => {
    data.on('data', (c: Buffer) => chunks.push(c));
    data.on('close', () => resolve());
  });
  await new Promise<void>((resolve) => data.once('connect', () => resolve()));
  if ('retr' in op) {
    const first = await cmd(`RETR ${op.retr}`);
    if (!first.startsWith('150')) {
      data.destroy();
      ctrl.destroy();
      return { replies };
    }
    await dataDone;
    await reply(); // 226
    await cmd('QUIT');
    ctrl.destroy();
    return { data: Buffer.concat(chunks), replies };
  }
  await cmd(`STOR ${op.stor}`);
  data.end(op.data);
  await dataDone;
  await reply(); // 226 or 552
  await cmd('QUIT');
  ctrl.destroy();
  return { replies };
}
