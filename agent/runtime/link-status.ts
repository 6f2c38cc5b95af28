// What `run` knows about its link, written to the state directory for `status` (another process).
import { z } from 'zod';
import { readTextIfExists, writeFileAtomic } from '../state/atomic-file.js';

const LINK_STATUS_SCHEMA = z.object({
  pid: z.int(),
  state: z.enum(['connecting', 'ready', 'waiting', 'stopped']),
  since: z.string(),
  last_error: z.object({ code: z.string(), message: z.string(), at: z.string() }).optional(),
});

export type LinkStatus = z.output<typeof LINK_STATUS_SCHEMA>;

export async function writeLinkStatus(path: string, status: LinkStatus): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(status)}\n`);
}

/** The last status written, or undefined (never ran, or unreadable). */
export async function readLinkStatus(path: string): Promise<LinkStatus | undefined> {
  const text = await readTextIfExists(path);
  if (text === undefined) return undefined;
  try {
    const parsed = LINK_STATUS_SCHEMA.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with this pid exists (the `run` that wrote the status is alive). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
