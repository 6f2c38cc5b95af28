// The affluence module's public surface: other modules and the composition root import from here only.
export { AffluenceService } from './service.js';
export { affluenceModule } from './module.js';
