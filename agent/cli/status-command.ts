// `ticketnet-agent status`: what a technician needs to see at a glance, from the state directory
// and a quick look at the router. Exit 0 only when enrolled and the router answers.
import type { RouterSettings } from '../config.js';
import { readFacts } from '../routeros/router-tasks.js';
import { processAlive, readLinkStatus } from '../runtime/link-status.js';
import { CommandJournal } from '../state/command-journal.js';
import { IdentityStore } from '../state/identity-store.js';
import type { Identity } from '../state/identity-store.js';
import { Outbox } from '../state/outbox.js';
import { StateDir } from '../state/state-dir.js';
import { cliRouter, describeError, EXIT, fingerprint } from './cli-io.js';
import type { CliIO } from './cli-io.js';

export interface StatusReport {
  state_dir: string;
  enrolled: boolean;
  identity_error?: string;
  agent_id?: string;
  allocation_id?: string;
  controller_url?: string;
  controller_key_fingerprint?: string;
  agent_key_fingerprint?: string;
  enrolled_at?: string;
  link: {
    running: boolean;
    state?: string;
    since?: string;
    last_error?: { code: string; message: string; at: string };
  };
  outbox_reports: number;
  journal_commands: number;
  router: {
    endpoint: string;
    reachable: boolean;
    rtt_ms?: number;
    identity?: string;
    routeros_version?: string;
    serial?: string;
    error?: string;
  };
}

export async function statusCommand(
  options: { stateDir: string; router: RouterSettings; json?: boolean },
  io: CliIO,
): Promise<number> {
  const dir = new StateDir(options.stateDir);
  let identity: Identity | undefined;
  let identityError: string | undefined;
  try {
    identity = await new IdentityStore(dir.identityFile).load();
  } catch (err) {
    identityError = (err as Error).message;
  }
  const linkStatus = await readLinkStatus(dir.linkStatusFile);
  const running = linkStatus !== undefined && linkStatus.state !== 'stopped' && processAlive(linkStatus.pid);

  const router = cliRouter({
    ...options.router,
    connectTimeoutMs: Math.min(options.router.connectTimeoutMs, 5000),
  });
  const routerStatus: StatusReport['router'] = { endpoint: router.endpoint, reachable: false };
  try {
    const started = process.hrtime.bigint();
    const facts = await readFacts(router);
    routerStatus.reachable = true;
    routerStatus.rtt_ms = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
    routerStatus.identity = facts.identity;
    routerStatus.routeros_version = facts.routeros_version;
    routerStatus.serial = facts.serial;
  } catch (err) {
    routerStatus.error = describeError(err);
  } finally {
    await router.close();
  }

  const report: StatusReport = {
    state_dir: dir.root,
    enrolled: identity !== undefined,
    ...(identityError ? { identity_error: identityError } : {}),
    ...(identity
      ? {
          agent_id: identity.agent_id,
          allocation_id: identity.allocation_id,
          controller_url: identity.controller_url,
          controller_key_fingerprint: fingerprint(identity.controller_key),
          agent_key_fingerprint: fingerprint(identity.agent_public_key),
          enrolled_at: identity.enrolled_at,
        }
      : {}),
    link: running
      ? {
          running,
          state: linkStatus.state,
          since: linkStatus.since,
          ...(linkStatus.last_error ? { last_error: linkStatus.last_error } : {}),
        }
      : { running: false },
    outbox_reports: await Outbox.count(dir.outboxDir),
    journal_commands: await CommandJournal.count(dir.journalDir),
    router: routerStatus,
  };

  if (options.json) io.out(JSON.stringify(report, null, 2));
  else printStatus(report, io);
  return report.enrolled && report.router.reachable ? EXIT.OK : EXIT.FAILED;
}

function printStatus(r: StatusReport, io: CliIO): void {
  io.out(`State directory   ${r.state_dir}`);
  if (r.identity_error) io.out(`Identity          UNREADABLE: ${r.identity_error}`);
  else if (!r.enrolled)
    io.out('Identity          not enrolled (ticketnet-agent enrol --controller URL --code CODE)');
  else {
    io.out(`Agent id          ${r.agent_id}`);
    io.out(`Allocation id     ${r.allocation_id}`);
    io.out(`Controller        ${r.controller_url}`);
    io.out(`Controller key    ${r.controller_key_fingerprint} (pinned)`);
    io.out(`Agent key         ${r.agent_key_fingerprint}`);
    io.out(`Enrolled at       ${r.enrolled_at}`);
  }
  const link = r.link.running ? `${r.link.state} since ${r.link.since}` : 'agent not running';
  io.out(`Link              ${link}`);
  if (r.link.last_error) io.out(`Last link error   ${r.link.last_error.code}: ${r.link.last_error.message}`);
  io.out(`Outbox            ${r.outbox_reports} report(s) waiting`);
  io.out(`Journal           ${r.journal_commands} command(s)`);
  const router = r.router.reachable
    ? `reachable at ${r.router.endpoint} (${r.router.rtt_ms} ms, RouterOS ${r.router.routeros_version}, identity ${r.router.identity})`
    : `UNREACHABLE at ${r.router.endpoint}: ${r.router.error}`;
  io.out(`Router            ${router}`);
}
