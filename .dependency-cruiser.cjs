// The architecture check (`npm run lint`): what a module may import, written as rules that fail.
// A "module" is a folder under controller/modules/, or controller/hub/ or controller/radius/; its
// public surface is its index.ts. See docs/architecture.md.
const MODULE = '^controller/(modules/[^/]+|hub|radius)/';

module.exports = {
  forbidden: [
    {
      name: 'module-internals',
      severity: 'error',
      comment:
        'Another module is reached through its index.ts only (its service and the small interfaces it exports), never its tables, queries or other files.',
      from: { path: MODULE },
      to: { path: MODULE, pathNot: ['^controller/$1/', `${MODULE}index\\.ts$`] },
    },
    {
      name: 'outside-module-internals',
      severity: 'error',
      comment: 'The composition root and the shared layers reach a module through its index.ts too.',
      // The database type joins every module's table declarations, and only those.
      from: { path: '^controller/', pathNot: [MODULE, '^controller/db/schema\\.ts$'] },
      to: { path: MODULE, pathNot: `${MODULE}index\\.ts$` },
    },
    {
      name: 'module-cycle',
      severity: 'error',
      comment:
        'Modules form a graph without cycles: two modules that need each other are one module, or one of them exports an interface the other fills.',
      from: { path: MODULE },
      to: { circular: true, path: MODULE },
    },
    {
      name: 'controller-to-agent',
      severity: 'error',
      comment: 'The controller and the agent share only protocol/.',
      from: { path: '^controller/' },
      to: { path: '^agent/' },
    },
    {
      name: 'agent-to-controller',
      severity: 'error',
      comment: 'The controller and the agent share only protocol/.',
      from: { path: '^agent/' },
      to: { path: '^controller/' },
    },
    {
      name: 'protocol-stands-alone',
      severity: 'error',
      comment: 'protocol/ is what both sides import; it imports neither.',
      from: { path: '^protocol/' },
      to: { path: '^(controller|agent)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // Type-only imports count: a module's boundary holds for its types too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
