// The agent hub's public surface: modules and the composition root import from here only.
export { AgentHub, type AgentHubOptions } from './agent-hub.js';
export { AgentLinks } from './agent-links.js';
export { CommandService } from './command-service.js';
export { loadControllerIdentity } from './controller-identity.js';
export {
  AgentCommandRunner,
  type AgentOutcome,
  type AgentTarget,
  type CommandFault,
} from './agent-command-runner.js';
export { hubModule } from './module.js';
export { RelayStream, StreamOpenError } from './stream-mux.js';
export type { HubTables } from './tables.js';
