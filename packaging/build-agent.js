// `npm run package:agent`: the site agent as ONE file, then as ONE executable.
// 1. esbuild bundles agent/cli.ts and its pure-JS dependencies into dist/agent-bundle/ticketnet-agent.cjs
//    (this file alone runs on any Node ≥ 20: it is what the RouterOS container image ships, for arm, arm64 and x86).
// 2. Node's single-executable-application support injects that bundle into a copy of this machine's
//    node binary with postject: dist/agent-bundle/ticketnet-agent (x86-64 Linux here; vercel/pkg cannot
//    be used because it downloads base binaries).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const out = 'dist/agent-bundle';
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const version = JSON.parse(readFileSync('package.json', 'utf8')).version;

const bundle = join(out, 'ticketnet-agent.cjs');
await build({
  entryPoints: ['packaging/agent-entry.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: bundle,
  minify: true,
  legalComments: 'linked',
  define: {
    'process.env.TICKETNET_AGENT_VERSION': JSON.stringify(version),
    // ws loads the optional native addons bufferutil and utf-8-validate unless these are set. Inside
    // the executable any require() of a non-builtin prints a warning on every start (and could never
    // load an addon anyway); defined here, the branches are dead code and the requires are dropped.
    'process.env.WS_NO_BUFFER_UTIL': '"1"',
    'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
  },
  logLevel: 'warning',
});

const blob = join(out, 'sea-prep.blob');
const seaConfig = join(out, 'sea-config.json');
writeFileSync(seaConfig, JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });

const exe = join(out, 'ticketnet-agent');
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
execFileSync(
  process.execPath,
  [
    'node_modules/postject/dist/cli.js',
    exe,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
  ],
  { stdio: 'inherit' },
);
rmSync(blob);
rmSync(seaConfig);

const mb = (p) => (statSync(p).size / 1048576).toFixed(1);
console.log(`bundle     ${bundle} (${mb(bundle)} MiB)`);
console.log(`executable ${exe} (${mb(exe)} MiB)`);
