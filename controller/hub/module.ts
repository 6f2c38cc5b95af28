import { RateLimiter } from '../http/rate-limiter.js';
import { defineModule } from '../modules/define-module.js';
import { AgentCommandRunner } from './agent-command-runner.js';
import { AgentHub } from './agent-hub.js';
import { AgentLinks } from './agent-links.js';
import { CommandService } from './command-service.js';
import { LocalCommandSignals } from './command-signals.js';
import { loadControllerIdentity } from './controller-identity.js';
import { commandExpiryJob, commandPruneJob } from './jobs.js';
import * as m0012 from './migrations/0012-agent-links.js';
import * as m0075 from './migrations/0075-agent-commands-open-indexes.js';
import { commandRoutes } from './routes.js';

export const hubModule = defineModule({
  name: 'hub',
  tables: ['agent_commands', 'agent_links'],
  migrations: { '0012-agent-links': m0012, '0075-agent-commands-open-indexes': m0075 },
  provides: ['hub', 'commands', 'agentLinks', 'runner'],
  build: async ({ db, caps, clock, logger, config, options, use }) => {
    const allocations = use('allocations');
    const agentLinks = new AgentLinks(db, caps.rowLocks);
    const signals = new LocalCommandSignals();
    const commands = new CommandService(db, clock, signals, allocations, logger, {
      rowLocks: caps.rowLocks,
      synchronousStatements: caps.synchronousStatements,
    });
    const hub = new AgentHub(
      {
        links: agentLinks,
        clock,
        logger,
        identity: await loadControllerIdentity(config.dataDir),
        allocations,
        commands,
        signals,
      },
      {
        maxPayload: config.agentMaxFrameBytes,
        preAuthMaxPayload: config.agentPreAuthMaxFrameBytes,
        maxHandshakes: config.agentMaxHandshakes,
        maxHandshakesPerAddress: config.agentMaxHandshakesPerAddress,
        handshakeTimeoutMs: config.agentHandshakeTimeoutMs,
        trustProxy: config.trustProxy,
        ...(config.authFailureQuota
          ? { enrolFailures: new RateLimiter(config.authFailureQuota, clock) }
          : {}),
        ...options.hub,
        instanceId: config.instanceId,
      },
    );
    return {
      services: { hub, commands, agentLinks, runner: new AgentCommandRunner(commands, allocations) },
      routes: (api) => commandRoutes(api, { commands, allocations, hub }),
      jobs: [commandExpiryJob({ commands }), commandPruneJob({ commands })],
    };
  },
});
