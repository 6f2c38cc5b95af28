// `ticketnet-agent facts`: reads the router directly on the LAN, no controller involved.
import type { RouterSettings } from '../config.js';
import { readFacts } from '../routeros/router-tasks.js';
import { cliRouter, describeError, EXIT } from './cli-io.js';
import type { CliIO } from './cli-io.js';

export async function factsCommand(
  settings: RouterSettings,
  options: { json?: boolean },
  io: CliIO,
): Promise<number> {
  const router = cliRouter(settings);
  try {
    const facts = await readFacts(router);
    if (options.json) {
      io.out(JSON.stringify(facts, null, 2));
    } else {
      const width = Math.max(...Object.keys(facts).map((key) => key.length));
      for (const [key, value] of Object.entries(facts)) io.out(`${key.padEnd(width)}  ${String(value)}`);
    }
    return EXIT.OK;
  } catch (err) {
    io.err(`Cannot read the router at ${router.endpoint}: ${describeError(err)}`);
    return EXIT.FAILED;
  } finally {
    await router.close();
  }
}
