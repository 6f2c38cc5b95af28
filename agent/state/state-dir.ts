// Where the agent keeps its keys, outbox, journal and the router login handed over by the controller.
// Nothing else of the agent is persistent.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** State directory of an agent running as root (a service or the RouterOS container). */
export const SYSTEM_STATE_DIR = '/var/lib/ticketnet-agent';
/** State directory of an agent run by an unprivileged user (a technician's laptop), relative to the cwd. */
export const LOCAL_STATE_DIR = './agent-state';
/** Environment variable naming the state directory when `--state-dir` is not given. */
export const STATE_DIR_ENV = 'TICKETNET_AGENT_STATE_DIR';

export interface StateDirSources {
  /** `--state-dir`. */
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  /** Effective uid (undefined on platforms without one). */
  uid?: number | undefined;
  cwd?: string;
}

/** `--state-dir`, else `TICKETNET_AGENT_STATE_DIR`, else the system or local default; always absolute. */
export function resolveStateDir(sources: StateDirSources = {}): string {
  const env = sources.env ?? process.env;
  const cwd = sources.cwd ?? process.cwd();
  const uid = 'uid' in sources ? sources.uid : process.getuid?.();
  const chosen = nonEmpty(sources.flag) ?? nonEmpty(env[STATE_DIR_ENV]);
  if (chosen !== undefined) return resolve(cwd, chosen);
  return uid === 0 ? SYSTEM_STATE_DIR : resolve(cwd, LOCAL_STATE_DIR);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The paths inside one state directory. */
export class StateDir {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Agent key pair, ids, controller URL and pinned controller key (mode 0600). */
  get identityFile(): string {
    return join(this.root, 'identity.json');
  }

  /** One file per report not yet acknowledged by the controller. */
  get outboxDir(): string {
    return join(this.root, 'outbox');
  }

  /** One file per command id received. */
  get journalDir(): string {
    return join(this.root, 'journal');
  }

  /** The router login the controller handed over (`router.login.set`), mode 0600. */
  get routerLoginFile(): string {
    return join(this.root, 'router-login.json');
  }

  /** What `run` last knew about its link, for `status` (another process). */
  get linkStatusFile(): string {
    return join(this.root, 'link-status.json');
  }

  /**
   * Creates the directories, 0700 as the secret key lives here. An existing directory keeps its
   * mode: `--state-dir /tmp` must not turn /tmp private (identity.json is 0600 anyway).
   */
  async ensure(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await mkdir(this.outboxDir, { recursive: true, mode: 0o700 });
    await mkdir(this.journalDir, { recursive: true, mode: 0o700 });
  }
}
