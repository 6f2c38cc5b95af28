import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for processes that must be told their port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A UDP port free on 127.0.0.1 right now (a relay binds it; the controller must know it first). */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Whether `port` can be listened on at `host` right now. */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive TCP ports free on every host, for a process told a range rather than
 * asked for one port. Picked below 20,000 to 32,000: the kernel hands out ephemeral ports from 32768 by
 * default, and any outgoing connection (a database client's, another test's) could take a port of a
 * block inside that range after it was probed. The random start keeps two runs on one machine apart.
 */
export async function freePortBlock(
  count: number,
  hosts: readonly string[] = ['127.0.0.1'],
): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * Math.floor((12_000 - count) / count)) * count;
    let free = true;
    for (let p = first; free && p < first + count; p++) {
      for (const host of hosts) if (!(await canListen(p, host))) free = false;
    }
    if (free) return first;
  }
  throw new Error(`no block of ${count} free TCP ports between 20000 and 32000`);
}
