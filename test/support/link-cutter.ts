// A TCP relay between an agent and its controller that a test can cut, as a link lost on the way
// is: `cut()` resets every connection passing through it at once (both ends see ECONNRESET, nothing
// is closed politely); new connections pass again, so the agent reconnects through it, unless the
// relay is held (`hold(true)`: every new connection is reset as it comes, the link stays down).
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface LinkCutter {
  /** The address the agent is given instead of the controller's. */
  url: string;
  /** Connections accepted so far (a reconnection shows as one more). */
  readonly accepted: number;
  /** Resets every connection through the relay; answers how many were cut. */
  cut(): number;
  /** While held, every new connection is reset at once. */
  hold(on: boolean): void;
  close(): Promise<void>;
}

export async function startLinkCutter(target: string): Promise<LinkCutter> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<readonly [Socket, Socket]>();
  let accepted = 0;
  let held = false;
  const server = createServer((inbound) => {
    accepted++;
    if (held) {
      inbound.on('error', () => undefined).resetAndDestroy();
      return;
    }
    const outbound = connect({ host: hostname, port: Number(port) });
    const pair = [inbound, outbound] as const;
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    for (const socket of pair) socket.on('error', drop).on('close', drop).setNoDelay(true);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get accepted() {
      return accepted;
    },
    hold(on) {
      held = on;
    },
    cut() {
      const cut = pairs.size;
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        for (const socket of pair) if (!socket.destroyed) socket.resetAndDestroy();
      }
      return cut;
    },
    close() {
      for (const pair of pairs) for (const socket of pair) socket.destroy();
      pairs.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
