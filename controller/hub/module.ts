import { defineModule } from '../modules/define-module.js';
import { AgentHub } from './agent-hub.js';
import { CommandService } from './command-service.js';
import { LocalCommandSignals } from './command-signals.js';
import { loadControllerIdentity } from './controller-identity.js';
import { commandExpiryJob } from './jobs.js';

export const hubModule = defineModule({
  name: 'hub',
  tables: ['agent_commands'],
  provides: ['hub', 'commands'],
  build: async ({ db, clock, logger, config, options, use }) => {
    const allocations = use('allocations');
    const signals = new LocalCommandSignals();
    const commands = new CommandService(db, clock, signals, allocations, logger);
    const hub = new AgentHub(
      {
        db,
        clock,
        logger,
        identity: await loadControllerIdentity(config.dataDir),
        allocations,
        commands,
        signals,
      },
      { ...options.hub, instanceId: config.instanceId },
    );
    return {
      services: { hub, commands },
      jobs: [commandExpiryJob({ commands })],
    };
  },
});
