// The generator of `npm run bench:qoe`: the routers' points, sent at saturation (a closed loop of
// `concurrency` sends in flight) or paced at a rate, through each router's agent link or its HTTP
// bridge token. The bench forks it (`--child`), so the generator's CPU is not counted as the
// controller's and each process holds one end of the 10,000 links (one file descriptor a link).
// Over IPC it takes, in this order: `{start}` (the routers and the controller's address), then
// `{connect}`, `{saturate}`, `{pace}` in any number, answered `{connected}`, `{saturated}`,
// `{paced}`, and `{finish}`, answered with each router's count of points sent (`{finished}`), so the
// bench goes on from there in its own process.
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { QoeBenchLink } from './bench-qoe-link.js';
import { ms } from './bench-support.js';

export interface Router {
  allocationId: string;
  nasId: string;
  token: string;
  agentId: string;
  secretKey: string;
  /** Points sent so far: the next one is 15 s after the last. */
  n: number;
}

/** Points of one router 15 s apart from a fixed base, with growing counters (usage counts each one). */
const BASE = Date.now() - 12 * 3_600_000;
export function point(r: Router, base = BASE) {
  const k = r.n++;
  return {
    observed_at: new Date(base + k * 15_000).toISOString(),
    rtt_ms: 600 + (k % 7),
    jitter_ms: 12.5,
    packet_loss_pct: k % 50 === 0 ? 2 : 0,
    tx_bps: 800_000,
    rx_bps: 4_000_000,
    wan_rx_bytes: 1_000_000_000 + k * 7_500_000,
    wan_tx_bytes: 100_000_000 + k * 1_500_000,
    top_consumers: [
      { username: 'user-a1b2', ip: '10.5.50.12', rx_bps: 2_100_000 },
      { username: 'user-c3d4', ip: '10.5.50.31', rx_bps: 900_000 },
      { username: 'user-e5f6', ip: '10.5.50.77', rx_bps: 400_000 },
    ],
  };
}

export type Send = (r: Router) => Promise<void>;

/** Sends refused or links closed under load, by message: counted and printed, never waited on. */
export const failures = new Map<string, number>();
export const failed = (err: unknown): void => {
  const what = (err as Error).message.slice(0, 120);
  failures.set(what, (failures.get(what) ?? 0) + 1);
};

export interface Saturated {
  count: number;
  seconds: number;
}

/** `concurrency` loops sending for `seconds`, round robin over the routers; each send carries `points`. */
export async function saturate(
  routers: Router[],
  send: Send,
  { concurrency, seconds, points = 1 }: { concurrency: number; seconds: number; points?: number },
): Promise<Saturated> {
  let next = 0;
  let count = 0;
  const until = Date.now() + seconds * 1000;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        try {
          await send(routers[next++ % routers.length]!);
          count += points;
        } catch (err) {
          failed(err);
        }
      }
    }),
  );
  return { count, seconds: ms(t0) / 1000 };
}

/** Latency of each send (ms) at `rate` sends per second, started on a 10 ms tick for `seconds`. */
export async function pace(routers: Router[], send: Send, rate: number, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let next = 0;
  let owed = 0;
  const until = Date.now() + seconds * 1000;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      if (Date.now() >= until) {
        clearInterval(tick);
        resolve();
        return;
      }
      owed += rate / 100;
      for (; owed >= 1; owed--) {
        const t0 = process.hrtime.bigint();
        pending.push(send(routers[next++ % routers.length]!).then(() => void latencies.push(ms(t0)), failed));
      }
    }, 10);
  });
  await Promise.all(pending);
  return latencies;
}

/** The ways a point (or a message standing for one) reaches the controller. */
export type Path = 'link' | 'backlog' | 'ping' | 'http' | 'refused';

export interface Start {
  routers: Router[];
  port: number;
  /** The controller's identity key (base64), pinned by every agent. */
  controllerKey: string;
  concurrency: number;
  seconds: number;
  /** Points per frame of an agent sending its outbox's backlog. */
  backlog: number;
}

/** The generator side of one database's run: the links, the HTTP client and the sends by path. */
class Generator {
  readonly #links = new Map<Router, QoeBenchLink>();
  // node:http on kept connections: `fetch` costs several times the CPU per request
  readonly #http: HttpAgent;

  constructor(readonly o: Start) {
    this.#http = new HttpAgent({ keepAlive: true, maxSockets: o.concurrency });
  }

  async connect(): Promise<void> {
    const url = `ws://127.0.0.1:${this.o.port}/agent/v1`;
    const { routers } = this.o;
    // Below the hub's handshakes per address (128): a refused upgrade is tried again.
    for (let i = 0; i < routers.length; i += 100) {
      await Promise.all(routers.slice(i, i + 100).map((r) => this.#link(url, r)));
      if ((i + 100) % 1000 === 0) console.log(`  ${i + 100} linked`);
    }
  }

  async #link(url: string, r: Router): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const link = new QoeBenchLink(
        url,
        { agent_id: r.agentId, secret_key: r.secretKey },
        this.o.controllerKey,
      );
      this.#links.set(r, link);
      // A handshake that never ends (a frame lost under load) is given up and tried again.
      const timer = setTimeout(() => link.close(), 15_000);
      try {
        return await link.linked;
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      } finally {
        clearTimeout(timer);
      }
    }
  }

  send(path: Path): Send {
    const report = (r: Router) => ({
      id: randomUUID(),
      kind: 'telemetry' as const,
      at: new Date().toISOString(),
      data: { qoe: point(r) },
    });
    switch (path) {
      case 'link':
        return (r) => this.#links.get(r)!.report(report(r));
      case 'backlog':
        return (r) => this.#links.get(r)!.reports(Array.from({ length: this.o.backlog }, () => report(r)));
      // the sealed round trip with nothing stored: the link's own cost per message
      case 'ping':
        return (r) => this.#links.get(r)!.ping();
      case 'http':
        return async (r) => {
          const res = await this.#post({ 'x-vpn-bridge-token': r.token }, { nas_id: r.nasId, ...point(r) });
          if (res.status !== 202) throw new Error(`telemetry answered ${res.status}: ${res.text}`);
        };
      // without its token: refused before any read or write, what the HTTP stack itself allows
      case 'refused':
        return async (r) => {
          const res = await this.#post({}, { nas_id: r.nasId, ...point(r) });
          if (res.status !== 401) throw new Error(`telemetry without a token answered ${res.status}`);
        };
    }
  }

  #post(headers: Record<string, string>, payload: unknown): Promise<{ status: number; text: string }> {
    const body = JSON.stringify(payload);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.o.port,
          path: '/api/v1/radius/qoe/telemetry',
          method: 'POST',
          agent: this.#http,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    for (const link of this.#links.values()) link.close();
    this.#http.destroy();
  }
}

type Ask =
  | { start: Start }
  | { connect: true }
  | { saturate: { path: Path } }
  | { pace: { path: Path; rate: number } }
  | { finish: true };

/** This process's CPU (user and system, µs) since `c0`. */
const cpuSince = (c0: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(c0);
  return u.user + u.system;
};

if (process.argv.includes('--child') && process.send) {
  const reply = (m: Record<string, unknown>) => process.send!(m);
  // The failures met since the last answer go with it; the bench sums them.
  const drained = () => {
    const out = Object.fromEntries(failures);
    failures.clear();
    return out;
  };
  let gen: Generator | undefined;
  process.on('disconnect', () => process.exit(0));
  process.on('message', (ask: Ask) => {
    void (async () => {
      if ('start' in ask) {
        gen = new Generator(ask.start);
        return reply({ started: true });
      }
      if (!gen) throw new Error('bench-qoe-load: asked before start');
      const c0 = process.cpuUsage();
      if ('connect' in ask) {
        await gen.connect();
        return reply({ connected: true });
      }
      if ('saturate' in ask) {
        const points = ask.saturate.path === 'backlog' ? gen.o.backlog : 1;
        const run = await saturate(gen.o.routers, gen.send(ask.saturate.path), { ...gen.o, points });
        return reply({ saturated: { ...run, cpu: cpuSince(c0), failures: drained() } });
      }
      if ('pace' in ask) {
        const { path, rate } = ask.pace;
        const latencies = await pace(gen.o.routers, gen.send(path), rate, gen.o.seconds);
        return reply({ paced: { latencies, cpu: cpuSince(c0), failures: drained() } });
      }
      gen.close();
      reply({ finished: gen.o.routers.map((r) => r.n) });
    })().catch((err: unknown) => {
      console.error('bench-qoe-load:', err);
      process.exit(1);
    });
  });
  reply({ ready: true });
}
