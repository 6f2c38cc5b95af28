// The architecture check: dependency-cruiser's file rules (.dependency-cruiser.cjs), then the module
// graph. A module is a folder under controller/modules/, or controller/hub/ or controller/radius/;
// modules must form a graph without cycles, type-only imports included. File-level cycle search
// stops at the first cycle it meets (often through the registry, which imports every module by
// design), so the module graph is built here from every import and searched whole.
import { cruise } from 'dependency-cruiser';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs');

const moduleOf = (path) => /^controller\/(modules\/[^/]+|hub|radius)\//.exec(path)?.[1] ?? null;

const result = await cruise(['controller', 'agent', 'protocol'], {
  ...config.options,
  ruleSet: { forbidden: config.forbidden },
  validate: true,
});
const { output } = result;
let failed = false;

for (const mod of output.modules) {
  for (const dep of mod.dependencies) {
    for (const rule of dep.rules ?? []) {
      failed = true;
      console.error(`${rule.name}: ${mod.source} → ${dep.resolved}`);
    }
  }
}

// Module graph: an edge A → B for every import from a file of A to a file of B.
const edges = new Map();
const witness = new Map();
for (const mod of output.modules) {
  const from = moduleOf(mod.source);
  if (!from) continue;
  for (const dep of mod.dependencies) {
    const to = moduleOf(dep.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from).add(to);
    if (!witness.has(`${from}>${to}`)) witness.set(`${from}>${to}`, `${mod.source} → ${dep.resolved}`);
  }
}

// Depth-first search; a grey node met again closes a cycle.
const state = new Map();
const stack = [];
const cycles = [];
const visit = (node) => {
  state.set(node, 'grey');
  stack.push(node);
  for (const next of edges.get(node) ?? []) {
    if (state.get(next) === 'grey') cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(node, 'black');
};
for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);

for (const cycle of cycles) {
  failed = true;
  console.error(`module-cycle: ${cycle.join(' → ')}`);
  for (let i = 0; i + 1 < cycle.length; i++)
    console.error(`    ${witness.get(`${cycle[i]}>${cycle[i + 1]}`)}`);
}

if (failed) process.exit(1);
const modules = new Set(output.modules.map((m) => moduleOf(m.source)).filter(Boolean));
console.log(
  `architecture: ${output.summary.totalCruised} files, ${modules.size} modules, no violation, no cycle`,
);
