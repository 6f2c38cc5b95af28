// Transpiles the TypeScript sources to dist/ (one file per source, ESM). Type checking is `npm run typecheck`.
import { build } from 'esbuild';
import { copyFileSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['controller', 'agent', 'protocol', 'test/routeros-sim'];
const entries = [];
// RADIUS dictionaries are read at run time beside the code that loads them.
const assets = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts'))
      entries.push(path);
    else if (name.startsWith('dictionary.')) assets.push(path);
  }
};
for (const root of roots) {
  try {
    walk(root);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}
rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: entries,
  outdir: 'dist',
  outbase: '.',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
for (const asset of assets) copyFileSync(asset, join('dist', asset));
