// GET (and any method) /api/v1/clients/topology/access/:deviceId/<path>: the device's web interface
// through the controller, the router's agent link and the router's dst-nat port: never a redirect.
// Every call checks the bearer, the tenant, the device's status and its router's owner again. The
// request and the answer are streamed both ways (the stream's credit is the backpressure); our
// `Authorization` header never reaches the device. Runs before the JSON body parser: the body is
// the device's business, passed on as bytes. The connection to the device is kept for the next
// request of the same tenant to the same device (relay-pool.ts).
import { isUuid } from '../../core/ids.js';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { AppError } from '../../core/app-error.js';
import { StreamOpenError } from '../../hub/index.js';
import type { AccountPrincipal } from '../../http/principal.js';
import { underCredentialQuota, type RateLimiter } from '../../http/rate-limiter.js';
import { EQUIPMENT_BASE } from './device-view.js';
import type { RelayPool, RelayTarget } from './relay-pool.js';
import type { EquipmentService } from './service.js';

const PATH = new RegExp(`^${EQUIPMENT_BASE}/access/([^/]*)(/.*)?$`);

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
  pool: RelayPool;
  authenticate: (token: string) => Promise<AccountPrincipal | null>;
  /** Failed credentials per client address, counted here as on every other authenticated route. */
  credentialFailures?: Pick<RateLimiter, 'check' | 'record'>;
  /** How long the device has to start answering. */
  timeoutMs: number;
}

/** Statuses whose answer never has a body (RFC 9110 §15.3.5, §15.3.6, §15.4.5). */
const NO_BODY = new Set([204, 205, 304]);

/** Methods a request may be sent again for, when it carries no body (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Each header that crosses the relay, either way: ours and hop-by-hop ones left out. */
function eachCrossing(
  headers: IncomingHttpHeaders,
  use: (name: string, value: string | string[]) => void,
): void {
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP.has(name)) use(name, value);
  }
}

/** The request's headers the device gets, `host` the device's. */
function forwardable(headers: IncomingHttpHeaders, host: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  eachCrossing(headers, (name, value) => (out[name] = value));
  out.host = host;
  return out;
}

const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** How the request log names a relayed request: never its path, which is the device's business. */
const ROUTE = `${EQUIPMENT_BASE}/access/:deviceId/*`;

export function relayMiddleware(deps: RelayDeps): Middleware {
  return async (ctx: Context, next: Next) => {
    const match = PATH.exec(ctx.path);
    if (!match) return next();
    (ctx as { _matchedRoute?: string })._matchedRoute = ROUTE;
    const principal = await authenticate(ctx, deps);
    // A malformed id is refused as every equipment route refuses one, after the bearer check:
    // nothing is read and nothing reaches a router.
    if (!isUuid(match[1]!)) {
      throw new AppError('VALIDATION_ERROR', 'Invalid path parameters', {
        details: [{ field: 'deviceId', message: 'expected a device id (UUID)' }],
      });
    }
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

/** Checks the device again and relays the request on a connection to it (kept or new). */
export async function openAndRelay(
  ctx: Context,
  deps: RelayDeps,
  tenantId: string,
  deviceId: string,
  path: string,
  querystring: string,
): Promise<void> {
  const target = await deps.equipment.relayTarget(tenantId, deviceId);
  const { pool } = deps;
  const options = pool.requestOptions(tenantId, deviceId, target);
  // A kept connection the device closed while idle fails before any answer: a request without a
  // body that may be repeated goes again (on another kept one, or a new one); others fail.
  const repeatable = IDEMPOTENT.has(ctx.method) && !hasBody(ctx.req);
  // Bounded: a new connection is never `stale` unless idle ones were closed for it, and each
  // stale one has left the pool.
  let outcome: 'sent' | 'stale';
  do {
    outcome = await relay(ctx, pool, options, target, path, querystring, deps.timeoutMs, repeatable);
  } while (outcome === 'stale');
}

// Under the address's failed-credentials quota, as the API's routes are.
function authenticate(ctx: Context, deps: RelayDeps): Promise<AccountPrincipal> {
  const header = ctx.get('authorization');
  return underCredentialQuota(deps.credentialFailures, ctx, header !== '', async () => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!bearer) throw new AppError('UNAUTHENTICATED', 'Missing bearer token');
    const principal = await deps.authenticate(bearer);
    if (!principal) throw new AppError('UNAUTHENTICATED', 'Invalid or expired token');
    if (principal.kind !== 'client') throw new AppError('FORBIDDEN', 'This account may not use this route');
    return principal;
  });
}

/**
 * The device's answer as the response, streamed (its backpressure reaches the device), without
 * Koa's own answering (`ctx.respond` false): a stream body costs Koa a pipeline, an abort signal
 * and finish listeners per request. The device's headers go as it sent them, minus hop-by-hop ones.
 */
function answer(ctx: Context, res: IncomingMessage): void {
  const out = ctx.res;
  ctx.respond = false;
  ctx.status = res.statusCode ?? 502;
  if (out.destroyed) {
    res.destroy();
    return;
  }
  const headers = res.headers;
  eachCrossing(headers, (name, value) => out.setHeader(name, value));
  // as Koa answered a stream body: typed as bytes unless the device says otherwise (nothing for an
  // answer that has no body)
  if (headers['content-type'] === undefined && !NO_BODY.has(ctx.status)) {
    out.setHeader('content-type', 'application/octet-stream');
  }
  // the device's connection breaks mid-answer: so does ours (the browser sees it cut, never whole)
  res.once('error', () => out.destroy());
  res.once('aborted', () => out.destroy());
  // the browser went before the end: the device's connection is not kept (it is mid-answer)
  out.once('close', () => {
    if (!res.complete) res.destroy();
  });
  res.pipe(out);
}

// The agent could not connect to the router's forward (its answer to the stream's opening).
function notOpened(err: Error): err is StreamOpenError {
  return err instanceof StreamOpenError && (err.reason === 'refused' || err.reason === 'timeout');
}

/**
 * One attempt: `sent` once the device's answer is the response body, `stale` when a kept
 * connection turned out closed before anything came back, or the agent refused a new stream while
 * idle ones held its places (closed now): the request may go again.
 */
function relay(
  ctx: Context,
  pool: RelayPool,
  options: ReturnType<RelayPool['requestOptions']>,
  target: RelayTarget,
  path: string,
  querystring: string,
  timeoutMs: number,
  repeatable: boolean,
): Promise<'sent' | 'stale'> {
  const search = querystring ? `?${querystring}` : '';
  return new Promise<'sent' | 'stale'>((resolve, reject) => {
    // the pool's options object is this request's own: completed in place, not copied
    options.method = ctx.method;
    options.path = `${path}${search}`;
    options.headers = forwardable(ctx.req.headers, `${target.lanIp}:${target.servicePort}`);
    const upstream: ClientRequest = httpRequest(options);
    const onAborted = () => upstream.destroy();
    const timer = setTimeout(() => {
      upstream.destroy();
      reject(new AppError('DEVICE_NOT_RESPONDING', 'The device did not answer in time'));
    }, timeoutMs);
    upstream.once('response', (res) => {
      clearTimeout(timer);
      ctx.req.off('aborted', onAborted);
      answer(ctx, res);
      resolve('sent');
    });
    upstream.once('error', (err) => {
      clearTimeout(timer);
      ctx.req.off('aborted', onAborted);
      if (err instanceof AppError) return reject(err);
      if (repeatable && !ctx.req.destroyed) {
        if (upstream.reusedSocket) return resolve('stale');
        // the agent's streams are all taken, some by idle kept connections: those go, then this again
        if (notOpened(err) && err.reason === 'refused' && pool.closeIdle(target.allocationId) > 0) {
          return resolve('stale');
        }
      }
      // No answer to the connection in time (a silent device behind the router's forward): 504.
      if (notOpened(err) && err.reason === 'timeout') {
        return reject(new AppError('DEVICE_NOT_RESPONDING', 'The device did not answer in time'));
      }
      reject(
        notOpened(err)
          ? new AppError('DEVICE_RELAY_FAILED', 'The router did not accept the connection to the device', {
              details: { reason: err.reason },
            })
          : new AppError('DEVICE_RELAY_FAILED', `The device's connection failed: ${err.message}`),
      );
    });
    // nothing to carry: ended at once (so the request can go again), else the body streams on
    if (repeatable) upstream.end();
    else ctx.req.pipe(upstream);
    ctx.req.once('aborted', onAborted);
  });
}
