// Entry of the single-file agent (packaging/build-agent.js bundles it as CommonJS, then into a Node
// single executable). It only loads the CLI, which parses process.argv and runs on import.
// Keep this file and everything the agent imports free of top-level await and import.meta: esbuild's
// CommonJS output cannot express the first and replaces the second with an empty object, so
// `import.meta.url` would be undefined inside the executable.
import '../agent/cli.js';
