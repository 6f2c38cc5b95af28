// `npm start`: the controller with its configuration from the environment.
import { ConfigError, loadConfig } from './config.js';
import { serve } from './serve.js';

try {
  await serve(loadConfig());
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
}
