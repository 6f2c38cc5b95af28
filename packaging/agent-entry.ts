// Entry of the single-file agent (packaging/build-agent.js bundles it as CommonJS, then into a Node
// single executable). It only loads the CLI, which parses process.argv and runs on import.
// Keep this file and everything the agent imports free of top-level await and import.meta: esbuild's
// CommonJS output cannot express the first and replaces the second with an empty object, so
// `import.meta.url` would be undefined inside the executable.
//
// The bundle's launcher starts node with --lite-mode. The executable cannot: V8 refuses it in
// NODE_OPTIONS, where the executable gets --jitless only. What --lite-mode adds to --jitless is
// --optimize-for-size (V8's heap sized and collected for memory rather than speed: 3.7 MiB less at
// idle), and V8 takes that one at run time, so the executable sets it here before the agent loads.
if (process.execArgv.includes('--lite-mode')) void import('../agent/cli.js');
else
  void import('node:v8').then((v8) => {
    v8.setFlagsFromString('--optimize-for-size');
    return import('../agent/cli.js');
  });
