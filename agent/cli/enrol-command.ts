// `ticketnet-agent enrol`: one connection, one enrolment, identity saved, done.
import { generateKeyPair, normaliseEnrolCode } from '../../protocol/index.js';
import type { RouterSettings } from '../config.js';
import { agentLinkUrl } from '../link/controller-url.js';
import { identityFromWelcome } from '../link/enrolment.js';
import { LinkError } from '../link/link-error.js';
import { openLink } from '../link/open-link.js';
import { readFacts } from '../routeros/router-tasks.js';
import { IdentityStore } from '../state/identity-store.js';
import { StateDir } from '../state/state-dir.js';
import { AGENT_VERSION } from '../version.js';
import { CATALOGUE_NAMES } from '../commands/command-catalogue.js';
import { cliRouter, describeError, EXIT, fingerprint } from './cli-io.js';
import type { CliIO } from './cli-io.js';

export interface EnrolCommandOptions {
  stateDir: string;
  controller: string;
  code: string;
  /** Replace an existing identity (new key pair, new agent). */
  force?: boolean | undefined;
  router: RouterSettings;
  handshakeTimeoutMs?: number;
}

export async function enrolCommand(options: EnrolCommandOptions, io: CliIO): Promise<number> {
  let url: string;
  try {
    url = agentLinkUrl(options.controller);
  } catch (err) {
    io.err(`Bad --controller: ${(err as Error).message}`);
    return EXIT.USAGE;
  }
  const dir = new StateDir(options.stateDir);
  await dir.ensure();
  const store = new IdentityStore(dir.identityFile);
  const existing = await store.load().catch(() => undefined);
  if (existing !== undefined && !options.force) {
    io.err(
      `Already enrolled as agent ${existing.agent_id} (allocation ${existing.allocation_id}) with ${existing.controller_url}.`,
    );
    io.err('Use --force to enrol again with a new key (the old agent stops working).');
    return EXIT.FAILED;
  }

  // Facts help the controller show which router this is; enrolment goes on without them.
  const router = cliRouter({ ...options.router, connectTimeoutMs: 3000, timeoutMs: 3000 });
  const facts = await readFacts(router).catch((err: unknown) => {
    io.out(`Router not readable (${describeError(err)}); enrolling without its facts.`);
    return undefined;
  });
  await router.close();

  const keyPair = generateKeyPair();
  try {
    const { session, controllerKey } = await openLink({
      url,
      credentials: {
        kind: 'enrol',
        code: normaliseEnrolCode(options.code),
        keyPair,
        ...(facts ? { facts } : {}),
      },
      agentVersion: AGENT_VERSION,
      capabilities: CATALOGUE_NAMES,
      ...(options.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: options.handshakeTimeoutMs } : {}),
    });
    const identity = identityFromWelcome(
      session.welcome,
      keyPair,
      options.controller,
      controllerKey,
      new Date(),
    );
    try {
      await store.save(identity);
    } finally {
      session.close();
      await session.ended;
    }
    io.out(`Enrolled with ${identity.controller_url}`);
    io.out(`  agent id        ${identity.agent_id}`);
    io.out(`  allocation id   ${identity.allocation_id}`);
    io.out(`  controller key  ${fingerprint(identity.controller_key)} (pinned)`);
    io.out(`  identity saved  ${store.path}`);
    io.out('Start the agent with: ticketnet-agent run');
    return EXIT.OK;
  } catch (err) {
    if (err instanceof LinkError) {
      io.err(`Enrolment failed: ${err.code}: ${err.message}`);
      if (err.code === 'ENROL_CODE_INVALID')
        io.err('The code is unknown, expired or already used: ask for a new one.');
      return EXIT.FAILED;
    }
    io.err(`Enrolment failed: ${describeError(err)}`);
    return EXIT.FAILED;
  }
}
