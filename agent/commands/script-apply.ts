// `router.script.apply`: runs a RouterOS script the controller wrote (the RADIUS provisioning) the
// way a technician would paste it: `/system/script/add`, `run`, then remove. RouterOS runs it in
// one go and a failing line traps the run, so the fault carries the router's own message.
import type { CommandOutput } from '../../protocol/index.js';
import type { AgentLogger } from '../logger.js';
import type { RouterConnection } from '../routeros/router-connection.js';
import { isRouterError, RouterError } from '../routeros/router-error.js';
import { monotonicMs } from '../../protocol/monotonic-time.js';

type ScriptApplyOutput = CommandOutput<'router.script.apply'>;

const MENU = '/system/script';

/**
 * Waits before each removal attempt of the temporary script: three attempts within ~2.5 s, as a
 * busy router (a trap, a timeout) usually answers again by then, and the command is not held long.
 */
export const SCRIPT_REMOVAL_WAITS_MS: readonly number[] = [0, 500, 2000];

export interface ScriptApplyOptions {
  name: string;
  source: string;
  signal?: AbortSignal;
  /** Where the clean-up of the temporary script reports its failures. */
  logger: AgentLogger;
}

export async function applyScript(
  router: RouterConnection,
  options: ScriptApplyOptions,
): Promise<ScriptApplyOutput> {
  const call = options.signal ? { signal: options.signal } : {};
  const started = monotonicMs();
  // A previous run cut short (agent restart, deadline, a removal that kept failing) may have left
  // its entry behind: a replay must not fail on the duplicate name, and the entry holds a secret.
  await removeByName(router, options.name, call);
  const id = await router.add(
    MENU,
    { name: options.name, source: options.source, comment: 'ticketnet: temporary, removed after its run' },
    call,
  );
  let ran: { ok: true } | { ok: false; err: unknown };
  try {
    await router.write(`${MENU}/run`, { '.id': id }, call);
    ran = { ok: true };
  } catch (err) {
    ran = { ok: false, err };
  }
  const leftover = await removeTemporary(router, id, options);
  // The run's own failure is the command's fault; a clean-up failure after it is only logged.
  if (!ran.ok) throw ran.err;
  if (leftover !== undefined) {
    // The script did its work, but its entry (it holds a secret) is still on the router: the caller
    // must know. A replay removes it first.
    throw new RouterError(
      isRouterError(leftover) ? leftover.code : 'ROUTER_TRAP',
      `the script ran but its temporary entry ${options.name} could not be removed: ${messageOf(leftover)}`,
      { retryable: true, cause: leftover },
    );
  }
  return { name: options.name, duration_ms: Math.round(monotonicMs() - started) };
}

/**
 * Removes the temporary entry, retried as `SCRIPT_REMOVAL_WAITS_MS` says; each failure is logged.
 * Runs without the command's signal: the entry must go even when the deadline cut the run short.
 * Answers the last error when every attempt failed, else undefined.
 */
async function removeTemporary(
  router: RouterConnection,
  id: string,
  options: ScriptApplyOptions,
): Promise<unknown> {
  const waits = SCRIPT_REMOVAL_WAITS_MS;
  let last: unknown;
  for (const [i, waitMs] of waits.entries()) {
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    try {
      // The first attempt by id; later ones look the name up, as a removal whose reply was lost
      // may have taken effect.
      if (i === 0) await router.remove(MENU, [id]);
      else await removeByName(router, options.name, {});
      return undefined;
    } catch (err) {
      last = err;
      const fields = { script: options.name, attempt: i + 1, attempts: waits.length, err: messageOf(err) };
      if (i + 1 < waits.length) options.logger.warn(fields, 'temporary script not removed; retrying');
      else options.logger.error(fields, 'temporary script left on the router');
    }
  }
  return last;
}

async function removeByName(
  router: RouterConnection,
  name: string,
  call: { signal?: AbortSignal },
): Promise<void> {
  const found = await router.print(MENU, { ...call, where: { name } });
  const ids = found.map((r) => r['.id']).filter((id): id is string => id !== undefined);
  if (ids.length > 0) await router.remove(MENU, ids, call);
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
