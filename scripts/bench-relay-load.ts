// The HTTP client of `bench:relay`: `inFlight` loops, each fetching a page again and again on kept
// connections for the cell's seconds. Imported by the bench to run in its process, or forked: it then
// runs each cell it is sent (`{cell}`) and answers `{run}` with its own CPU for that cell, so a
// browser's work is not counted as the controller's.
import { Agent, request } from 'node:http';

export interface Cell {
  port: number;
  path: string;
  inFlight: number;
  seconds: number;
  token?: string;
}

export interface Run {
  requests: number;
  bytes: number;
  latencies: number[];
  seconds: number;
  /** CPU of the process that ran the client during the cell (µs). */
  cpu: NodeJS.CpuUsage;
}

function get(port: number, path: string, agent: Agent, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      },
      (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () =>
          res.statusCode === 200 ? resolve(n) : reject(new Error(`HTTP ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function load(cell: Cell): Promise<Run> {
  const agent = new Agent({ keepAlive: true, maxSockets: cell.inFlight });
  const cpu0 = process.cpuUsage();
  const run: Run = { requests: 0, bytes: 0, latencies: [], seconds: 0, cpu: cpu0 };
  const start = performance.now();
  const until = start + cell.seconds * 1000;
  await Promise.all(
    Array.from({ length: cell.inFlight }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        // awaited first: `run.bytes += await …` would add to the total read before the wait
        const bytes = await get(cell.port, cell.path, agent, cell.token);
        run.bytes += bytes;
        run.latencies.push(performance.now() - t0);
        run.requests++;
      }
    }),
  );
  run.seconds = (performance.now() - start) / 1000;
  run.cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return run;
}

// Forked by the bench: the client in a process of its own.
if (process.send && process.argv.includes('--child')) {
  process.on('message', (m: { cell?: Cell }) => {
    if (m.cell) void load(m.cell).then((run) => process.send!({ run }));
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
