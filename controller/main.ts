// `npm start`: the controller with its configuration from the environment.
import { ConfigError, loadConfig } from './config.js';
import { serve } from './serve.js';

try {
  await serve(loadConfig());
} catch (err) {
  // The message only, as the CLI does: a start-up failure is read by an operator, not a debugger.
  console.error(err instanceof ConfigError || err instanceof Error ? `error: ${err.message}` : err);
  process.exit(1);
}
