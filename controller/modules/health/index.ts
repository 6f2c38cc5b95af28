// The health module's public surface: other modules and the composition root import from here only.
export { healthModule } from './module.js';
