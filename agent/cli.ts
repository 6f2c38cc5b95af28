#!/usr/bin/env node
// ticketnet-agent: the site agent and the technician's tool on the LAN. Each subcommand lives in
// agent/cli/<name>-command.ts; this file only parses arguments. Each subcommand is imported when it
// runs: the long-running agent (`run`) does not hold the technician's tools in memory.
import { Command, CommanderError, Option } from 'commander';
import { EXIT, PROCESS_IO } from './cli/cli-io.js';
import { qoeSettings } from './telemetry/qoe-settings.js';
import { ConfigError, radiusRelaySettings, routerSettings } from './config.js';
import type { RadiusRelayFlags, RouterFlags, RouterSettings } from './config.js';
import { createLogger } from './logger.js';
import { resolveStateDir } from './state/state-dir.js';
import { AGENT_VERSION } from './version.js';

interface GlobalFlags {
  stateDir?: string;
}

function withRouterOptions(command: Command): Command {
  return command
    .option(
      '--router-host <host>',
      'router address; "gateway" = default gateway (RouterOS container) [env TICKETNET_ROUTER_HOST, default 127.0.0.1]',
    )
    .option('--router-port <port>', 'RouterOS API port [env TICKETNET_ROUTER_PORT, default 8728]')
    .option('--router-user <user>', 'RouterOS user [env TICKETNET_ROUTER_USER, default admin]')
    .option(
      '--router-password <password>',
      'RouterOS password; prefer env TICKETNET_ROUTER_PASSWORD (not shown in ps)',
    )
    .option(
      '--ftp-port <port>',
      'router FTP port, for RouterOS 6 backups [env TICKETNET_FTP_PORT, default 21]',
    )
    .option(
      '--router-timeout <ms>',
      'router reply timeout in ms [env TICKETNET_ROUTER_TIMEOUT_MS, default 15000]',
    );
}

/** `--telemetry-interval` in seconds (1 s to a day), as milliseconds. */
function telemetryIntervalMs(seconds: string): number {
  const value = Number(seconds);
  if (!Number.isInteger(value) || value < 1 || value > 86_400)
    throw new ConfigError(
      `--telemetry-interval must be a whole number of seconds from 1 to 86400, not "${seconds}"`,
    );
  return value * 1000;
}

let exitCode: number = EXIT.OK;

/** Subcommands return their exit code; commander does not pass it on, so it is kept here. */
function exitWith<A extends unknown[]>(
  action: (...args: A) => Promise<number>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    exitCode = await action(...args);
  };
}

function stateDir(command: Command): string {
  return resolveStateDir({ flag: command.optsWithGlobals<GlobalFlags>().stateDir });
}

function router(command: Command): Promise<RouterSettings> {
  return routerSettings(command.opts<RouterFlags>());
}

const program = new Command('ticketnet-agent')
  .description('ticketnet site agent: keeps the link to the controller and does the router work')
  .version(AGENT_VERSION)
  .option(
    '--state-dir <dir>',
    'state directory [env TICKETNET_AGENT_STATE_DIR; /var/lib/ticketnet-agent as root, else ./agent-state]',
  )
  .exitOverride()
  .showHelpAfterError();

withRouterOptions(
  program
    .command('run')
    .description('run the agent: connect to the controller and execute its commands')
    .addOption(
      new Option('--controller <url>', 'controller URL (to enrol on first start)').env(
        'TICKETNET_CONTROLLER_URL',
      ),
    )
    .addOption(
      new Option('--code <code>', 'enrolment code, used only if not enrolled yet').env(
        'TICKETNET_ENROL_CODE',
      ),
    )
    .addOption(
      new Option('--log-level <level>', 'log level: debug, info, warn, error or silent')
        .env('TICKETNET_LOG_LEVEL')
        .default('info'),
    )
    .addOption(
      new Option('--telemetry-interval <seconds>', 'seconds between two telemetry reports')
        .env('TICKETNET_TELEMETRY_INTERVAL_S')
        .default('300'),
    )
    .addOption(
      new Option('--qoe-interval <seconds>', 'seconds between two network-quality points (15 to 900)')
        .env('TICKETNET_QOE_INTERVAL_S')
        .default('60'),
    )
    .addOption(
      new Option('--qoe-targets <ipv4s>', 'comma-separated hosts the router pings for network quality').env(
        'TICKETNET_QOE_TARGETS',
      ),
    )
    .option(
      '--radius-relay-host <ipv4>',
      "address the router's RADIUS is taken on [env TICKETNET_RADIUS_RELAY_HOST, default 0.0.0.0]",
    )
    .option(
      '--radius-relay-auth-port <port|off>',
      'RADIUS authentication port relayed to the controller [env TICKETNET_RADIUS_RELAY_AUTH_PORT, default 1812]',
    )
    .option(
      '--radius-relay-acct-port <port|off>',
      'RADIUS accounting port relayed to the controller [env TICKETNET_RADIUS_RELAY_ACCT_PORT, default 1813]',
    )
    .option(
      '--radius-relay-allow <cidrs>',
      "comma-separated IPv4 addresses/CIDR blocks allowed to use the relay (0.0.0.0/0: any) [env TICKETNET_RADIUS_RELAY_ALLOW, default the router's own addresses]",
    )
    .option(
      '--radius-relay-advertise <ipv4>',
      'address the router sends RADIUS to, when the agent cannot tell it (NAT) [env TICKETNET_RADIUS_RELAY_ADVERTISE, default the address the agent reaches the router from]',
    ),
).action(
  exitWith(
    async (
      flags: {
        controller?: string;
        code?: string;
        logLevel: string;
        telemetryInterval: string;
        qoeInterval: string;
        qoeTargets?: string;
      } & RadiusRelayFlags,
      command: Command,
    ) =>
      (await import('./cli/run-command.js')).runCommand(
        {
          stateDir: stateDir(command),
          router: await router(command),
          logger: createLogger(flags.logLevel),
          controller: flags.controller,
          code: flags.code,
          radiusRelay: radiusRelaySettings(flags),
          telemetryIntervalMs: telemetryIntervalMs(flags.telemetryInterval),
          qoe: qoeSettings(flags.qoeInterval, flags.qoeTargets),
        },
        PROCESS_IO,
      ),
  ),
);

withRouterOptions(
  program
    .command('enrol')
    .description('enrol this agent with the controller using a one-time code')
    .requiredOption('--controller <url>', 'controller URL, e.g. https://controller.example.com')
    .requiredOption('--code <code>', 'enrolment code shown when the allocation was created')
    .option('--force', 'enrol again even if already enrolled (new key pair)'),
).action(
  exitWith(async (flags: { controller: string; code: string; force?: boolean }, command: Command) =>
    (await import('./cli/enrol-command.js')).enrolCommand(
      {
        stateDir: stateDir(command),
        controller: flags.controller,
        code: flags.code,
        force: flags.force,
        router: await router(command),
      },
      PROCESS_IO,
    ),
  ),
);

withRouterOptions(
  program
    .command('status')
    .description('identity, pinned key, link, outbox, journal and router reachability')
    .option('--json', 'print JSON'),
).action(
  exitWith(async (flags: { json?: boolean }, command: Command) =>
    (await import('./cli/status-command.js')).statusCommand(
      { stateDir: stateDir(command), router: await router(command), json: flags.json ?? false },
      PROCESS_IO,
    ),
  ),
);

withRouterOptions(
  program.command('facts').description('read the router facts directly (LAN)').option('--json', 'print JSON'),
).action(
  exitWith(async (flags: { json?: boolean }, command: Command) =>
    (await import('./cli/facts-command.js')).factsCommand(
      await router(command),
      { json: flags.json ?? false },
      PROCESS_IO,
    ),
  ),
);

withRouterOptions(
  program
    .command('backup')
    .description('save a backup on the router and write it here, with its size and sha256')
    .option('--out <file>', 'local file (default: the router file name in the current directory)')
    .option('--name <name>', 'file name on the router (default ticketnet-cli)'),
).action(
  exitWith(async (flags: { out?: string; name?: string }, command: Command) =>
    (await import('./cli/backup-command.js')).backupCommand(
      await router(command),
      { out: flags.out, name: flags.name },
      PROCESS_IO,
    ),
  ),
);

async function main(argv: readonly string[]): Promise<number> {
  try {
    await program.parseAsync(argv as string[]);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has already printed the problem (or the help, or the version).
      return ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(err.code)
        ? EXIT.OK
        : EXIT.USAGE;
    }
    if (err instanceof ConfigError) {
      PROCESS_IO.err(err.message);
      return EXIT.USAGE;
    }
    PROCESS_IO.err(`ticketnet-agent: ${(err as Error).message}`);
    return EXIT.FAILED;
  }
}

// No top-level await, so the CLI also bundles as CommonJS (esbuild --format=cjs) for a single executable.
void main(process.argv).then((code) => {
  process.exitCode = code;
  // Everything is closed by now; if a stray handle still holds the loop, do not hang a service stop.
  setTimeout(() => process.exit(code), 2000).unref();
});
