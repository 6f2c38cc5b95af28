// GET (and any method) /api/v1/clients/topology/access/:deviceId/<path>: the device's web interface
// through the controller, the router's agent link and the router's dst-nat port: never a redirect.
// Every call checks the bearer, the tenant, the device's status and its router's owner again. The
// request and the answer are streamed both ways (the stream's credit is the backpressure); our
// `Authorization` header never reaches the device. Runs before the JSON body parser: the body is
// the device's business, passed on as bytes.
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../../core/app-error.js';
import { StreamOpenError, type AgentHub, type RelayStream } from '../../hub/index.js';
import type { AccountPrincipal } from '../../http/principal.js';
import { EQUIPMENT_BASE } from './device-view.js';
import type { EquipmentService } from './service.js';

const PATH = new RegExp(`^${EQUIPMENT_BASE}/access/([0-9a-fA-F-]{36})(/.*)?$`);

// Hop-by-hop headers (RFC 9110 §7.6.1) and ours: never forwarded either way.
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
]);

export interface RelayDeps {
  equipment: EquipmentService;
  hub: Pick<AgentHub, 'openStream'>;
  authenticate: (token: string) => Promise<AccountPrincipal | null>;
  /** How long the device has to start answering. */
  timeoutMs: number;
}

function forwardable(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP.has(name)) out[name] = value;
  }
  return out;
}

export function relayMiddleware(deps: RelayDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const match = PATH.exec(ctx.path);
    if (!match) return next();
    const principal = await authenticate(ctx, deps);
    await openAndRelay(
      ctx,
      deps,
      principal.tenantId,
      match[1]!.toLowerCase(),
      match[2] ?? '/',
      ctx.querystring,
    );
  };
}

/** Checks the device again, opens a stream to its router's forward and relays the request on it. */
export async function openAndRelay(
  ctx: Context,
  deps: RelayDeps,
  tenantId: string,
  deviceId: string,
  path: string,
  querystring: string,
): Promise<void> {
  {
    const target = await deps.equipment.relayTarget(tenantId, deviceId);
    // The request leaves with the stream's opening: no round trip to wait for first.
    const stream = deps.hub.openStream(target.allocationId, target.dstnatPort);
    if (!stream) {
      throw new AppError(
        'EQUIPMENT_LINK_DOWN',
        "The router's agent link is down; the device cannot be reached now",
      );
    }
    await relay(ctx, stream, target, path, querystring, deps.timeoutMs);
  }
}

async function authenticate(ctx: Context, deps: RelayDeps): Promise<AccountPrincipal> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  if (!bearer) throw new AppError('UNAUTHENTICATED', 'Missing bearer token');
  const principal = await deps.authenticate(bearer);
  if (!principal) throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
  if (principal.kind !== 'client') throw new AppError('FORBIDDEN', 'This account may not use this route');
  return principal;
}

// The agent could not connect to the router's forward (its answer to the stream's opening).
function notOpened(err: Error): err is StreamOpenError {
  return err instanceof StreamOpenError && (err.reason === 'refused' || err.reason === 'timeout');
}

function relay(
  ctx: Context,
  stream: RelayStream,
  target: { lanIp: string; servicePort: number; protocol: 'http' | 'https' },
  path: string,
  querystring: string,
  timeoutMs: number,
): Promise<void> {
  const search = querystring ? `?${querystring}` : '';
  return new Promise<void>((resolve, reject) => {
    const upstream = httpRequest({
      method: ctx.method,
      path: `${path}${search}`,
      headers: {
        ...forwardable(ctx.req.headers),
        host: `${target.lanIp}:${target.servicePort}`,
        connection: 'close',
      },
      // Embedded web servers use self-signed certificates: the path to them is our own link.
      createConnection: () =>
        target.protocol === 'https' ? tlsConnect({ socket: stream, rejectUnauthorized: false }) : stream,
    });
    const timer = setTimeout(() => {
      upstream.destroy();
      reject(new AppError('DEVICE_NOT_RESPONDING', 'The device did not answer in time'));
    }, timeoutMs);
    upstream.once('response', (res) => {
      clearTimeout(timer);
      ctx.body = res;
      ctx.status = res.statusCode ?? 502;
      // after the body: Koa types a stream body itself, the device's own headers win
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined && !HOP.has(name)) ctx.set(name, value as string | string[]);
      }
      res.once('close', () => stream.destroy());
      resolve();
    });
    upstream.once('error', (err) => {
      clearTimeout(timer);
      stream.destroy();
      reject(
        notOpened(err)
          ? new AppError('DEVICE_RELAY_FAILED', 'The router did not accept the connection to the device', {
              details: { reason: err.reason },
            })
          : new AppError('DEVICE_RELAY_FAILED', `The device's connection failed: ${err.message}`),
      );
    });
    ctx.req.pipe(upstream);
    ctx.req.once('aborted', () => upstream.destroy());
  });
}
