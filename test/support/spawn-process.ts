// Starts one of our processes from the TypeScript sources (through tsx), as a separate OS process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first stdout line matching, or rejects on exit/timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs a TypeScript entry through tsx (no build needed). */
export function spawnTs(entry: string, args: string[], env: Record<string, string> = {}): Spawned {
  return spawnNode(['--import', 'tsx', entry, ...args], env);
}

/** Runs a built entry from dist/ (`npm test` builds first): the artifact users run, signals and all. */
export function spawnDist(entry: string, args: string[], env: Record<string, string> = {}): Spawned {
  return spawnNode([entry, ...args], env);
}

function spawnNode(argv: string[], env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timeout waiting for ${pattern}; output:\n${out}`)),
          timeoutMs,
        );
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line) {
            clearTimeout(timer);
            child.stdout!.off('data', check);
            resolve(line);
          }
        };
        child.stdout!.on('data', check);
        void exited.then((code) => reject(new Error(`exited ${code} before ${pattern}; output:\n${out}`)));
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
