// LISTEN on a PostgreSQL connection of its own (a pooled one would be handed to queries). A lost
// connection is opened again after a pause; `onReconnect` then lets the listener catch up on what
// it may have missed meanwhile (notifications are not queued for a connection that is gone).
import pg from 'pg';

export interface ListenHandlers {
  onPayload(payload: string): void;
  /** Called after the connection was lost and LISTEN holds again. */
  onReconnect(): void;
}

export interface DbListening {
  close(): Promise<void>;
}

export type DbListen = (channel: string, handlers: ListenHandlers) => Promise<DbListening>;

const RETRY_MS = 1000;

export async function pgListen(
  clientConfig: pg.ClientConfig,
  channel: string,
  handlers: ListenHandlers,
): Promise<DbListening> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`bad LISTEN channel ${channel}`);
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const open = async (): Promise<void> => {
    const c = new pg.Client(clientConfig);
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) handlers.onPayload(n.payload);
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    await c.connect();
    await c.query(`listen ${channel}`);
    client = c;
  };
  const lost = (c: pg.Client): void => {
    if (client !== c || closed) return;
    client = null;
    c.end().catch(() => undefined);
    const again = (): void => {
      retry = undefined;
      if (closed) return;
      open().then(
        () => handlers.onReconnect(),
        () => (retry = setTimeout(again, RETRY_MS)),
      );
    };
    retry = setTimeout(again, RETRY_MS);
  };

  await open();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
