// Entry of the single-file agent (packaging/build-agent.js bundles it as CommonJS, then into a Node
// single executable). It only loads the CLI, which parses process.argv and runs on import.
// Keep this file and everything the agent imports free of top-level await and import.meta: esbuild's
// CommonJS output cannot express the first and replaces the second with an empty object, so
// `import.meta.url` would be undefined inside the executable.
//
// The bundle's launcher starts node with the flags of agent-node-flags.json. The executable cannot
// carry them: V8 refuses most in NODE_OPTIONS, where the executable gets --jitless only. V8 takes
// the ones below at run time, so the executable (and a bare `node ticketnet-agent.cjs`) sets them here
// before the agent loads:
// - --optimize-for-size, what --lite-mode adds to --jitless: V8's heap sized and collected for
//   memory rather than speed (3.7 MiB less at idle);
// - --bytecode-old-age=1 and --expose-gc, for the settling below.
/** After start-up, full collections drop the bytecode of what only start-up ran (0.5 MiB). */
const SETTLE_AFTER_MS = 20_000;

// With --bytecode-old-age=1 a function not run between two full collections loses its bytecode
// (compiled again if it ever runs again). Enrolment, the CLI, module set-up and the first link have
// run by then; the timer never holds the process up.
function settle(gc: () => void): void {
  setTimeout(() => {
    for (let i = 0; i < 3; i++) gc();
  }, SETTLE_AFTER_MS).unref();
}

if (process.execArgv.includes('--lite-mode')) {
  void import('../agent/cli.js');
  const { gc } = globalThis as { gc?: () => void };
  if (typeof gc === 'function') settle(gc);
} else {
  void import('node:v8').then(async (v8) => {
    for (const flag of ['--optimize-for-size', '--bytecode-old-age=1', '--expose-gc'])
      v8.setFlagsFromString(flag);
    const { runInNewContext } = await import('node:vm');
    settle(runInNewContext('gc') as () => void);
    return import('../agent/cli.js');
  });
}
