// The router login the controller handed over (`router.login.set`): kept owner-only in the state
// directory so a restarted agent goes on using it, as the identity file is. It replaces the login
// given by flags or environment, which is only the first one (often the factory `admin`).
import { z } from 'zod';
import { readTextIfExists, writeFileAtomic } from './atomic-file.js';

export interface RouterLogin {
  user: string;
  password: string;
  port: number;
}

const LOGIN_SCHEMA = z.object({
  user: z.string().min(1),
  password: z.string(),
  port: z.int().min(1).max(65535),
});

export class RouterLoginStore {
  constructor(readonly path: string) {}

  /** The stored login, or undefined when none was handed over (or the file is not ours). */
  async load(): Promise<RouterLogin | undefined> {
    const text = await readTextIfExists(this.path);
    if (text === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    const checked = LOGIN_SCHEMA.safeParse(parsed);
    return checked.success ? checked.data : undefined;
  }

  async save(login: RouterLogin): Promise<void> {
    await writeFileAtomic(this.path, `${JSON.stringify(login)}\n`, { mode: 0o600 });
  }
}
