// `ticketnet-agent backup`: saves a backup on the router and writes it on this machine.
import { basename, resolve } from 'node:path';
import type { RouterSettings } from '../config.js';
import { saveBackup } from '../routeros/router-tasks.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import { cliRouter, describeError, EXIT } from './cli-io.js';
import type { CliIO } from './cli-io.js';

export interface BackupCommandOptions {
  /** Local file to write (default: the router's file name, in the current directory). */
  out?: string | undefined;
  /** File stem on the router. */
  name?: string | undefined;
  cwd?: string;
}

/** Name of the backup on the router when the technician gives none. */
export const CLI_BACKUP_NAME = 'ticketnet-cli';

export async function backupCommand(
  settings: RouterSettings,
  options: BackupCommandOptions,
  io: CliIO,
): Promise<number> {
  const router = cliRouter(settings);
  try {
    const backup = await saveBackup(router, {
      name: options.name ?? CLI_BACKUP_NAME,
      ftpPort: settings.ftpPort,
    });
    const target = resolve(options.cwd ?? process.cwd(), options.out ?? basename(backup.file_name));
    // A RouterOS backup holds the router's passwords and keys: owner-only.
    await writeFileAtomic(target, Buffer.from(backup.content_base64, 'base64'), { mode: 0o600 });
    io.out(`Backup ${backup.file_name} saved to ${target}`);
    io.out(`size    ${backup.size} bytes`);
    io.out(`sha256  ${backup.sha256}`);
    return EXIT.OK;
  } catch (err) {
    io.err(`Backup failed (router ${router.endpoint}): ${describeError(err)}`);
    return EXIT.FAILED;
  } finally {
    await router.close();
  }
}
