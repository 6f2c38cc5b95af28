// `router.script.apply`: runs a RouterOS script the controller wrote (the RADIUS provisioning) the
// way a technician would paste it: `/system/script/add`, `run`, then remove. RouterOS runs it in
// one go and a failing line traps the run, so the fault carries the router's own message.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterConnection } from '../routeros/router-connection.js';

type ScriptApplyOutput = CommandOutput<'router.script.apply'>;

const MENU = '/system/script';

export async function applyScript(
  router: RouterConnection,
  options: { name: string; source: string; signal?: AbortSignal },
): Promise<ScriptApplyOutput> {
  const call = options.signal ? { signal: options.signal } : {};
  const started = performance.now();
  // A previous run cut short (agent restart, deadline) may have left its entry behind: a replay
  // must not fail on the duplicate name.
  const stale = await router.print(MENU, { ...call, where: { name: options.name } });
  const staleIds = stale.map((r) => r['.id']).filter((id): id is string => id !== undefined);
  if (staleIds.length > 0) await router.remove(MENU, staleIds, call);
  const id = await router.add(
    MENU,
    { name: options.name, source: options.source, comment: 'ticketnet: temporary, removed after its run' },
    call,
  );
  try {
    await router.write(`${MENU}/run`, { '.id': id }, call);
  } finally {
    // Best effort, and without the signal: the entry holds a secret and should not stay behind.
    await router.remove(MENU, [id]).catch(() => undefined);
  }
  return { name: options.name, duration_ms: Math.round(performance.now() - started) };
}
