// The architecture check (`npm run lint`, scripts/check-architecture.js): what a file may import.
// The module graph's cycles are found by the script itself.
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
      from: { path: '^controller/', pathNot: MODULE },
      to: { path: MODULE, pathNot: `${MODULE}index\\.ts$` },
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
