// Runs a catalogue command the way the agent's executor does, without the link: params checked by
// the protocol, the router catalogue's handler, output checked by the protocol, errors as faults.
import { randomUUID } from 'node:crypto';
import { parseCommandOutput, parseCommandParams } from '../../../../protocol/index.js';
import type { Fault, MessageBody } from '../../../../protocol/index.js';
import { SILENT_LOGGER } from '../../../../agent/logger.js';
import { routerCatalogue } from '../../../../agent/commands/command-catalogue.js';
import type { CommandContext } from '../../../../agent/commands/command-catalogue.js';
import { faultFromError } from '../../../../agent/commands/fault-from-error.js';
import type { RouterConnection, RouterParams } from '../../../../agent/routeros/router-connection.js';

export type CommandRun = { status: 'DONE'; output: unknown } | { status: 'FAILED'; fault: Fault };

export async function runCommand(
  router: RouterConnection,
  name: string,
  params: unknown,
): Promise<CommandRun> {
  const check = parseCommandParams(name, params);
  if (!check.ok) return { status: 'FAILED', fault: check.fault };
  const command = {
    id: randomUUID(),
    name,
    params,
    deadline: new Date(Date.now() + 60_000).toISOString(),
  } as MessageBody<'command'>;
  const handler = routerCatalogue(SILENT_LOGGER)[check.value.name] as (
    c: CommandContext<never>,
  ) => Promise<unknown>;
  try {
    const output = await handler({
      router,
      params: check.value.params as never,
      command,
      signal: new AbortController().signal,
    });
    const checked = parseCommandOutput(check.value.name, output);
    return checked.ok
      ? { status: 'DONE', output: checked.value }
      : { status: 'FAILED', fault: checked.fault };
  } catch (err) {
    return { status: 'FAILED', fault: faultFromError(err) };
  }
}

/** Output of a run that must be DONE. */
export async function outputOf<T>(router: RouterConnection, name: string, params: unknown): Promise<T> {
  const run = await runCommand(router, name, params);
  if (run.status !== 'DONE') throw new Error(`${name} failed: ${JSON.stringify(run.fault)}`);
  return run.output as T;
}

/** Records every API command the connection sends, as words (path first). */
export function recordCalls(router: RouterConnection): string[][] {
  const calls: string[][] = [];
  const call = router.call.bind(router);
  router.call = (path: string, params?: RouterParams, options?: Parameters<RouterConnection['call']>[2]) => {
    const words = Array.isArray(params)
      ? [...(params as readonly string[])]
      : Object.entries(params ?? {}).map(([k, v]) => `=${k}=${String(v)}`);
    calls.push([path, ...words]);
    return call(path, params, options);
  };
  return calls;
}
