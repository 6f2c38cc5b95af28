// The admin module's public surface: other modules and the composition root import from here only.
export { adminModule } from './module.js';
