// `ticketnet-controller`: start the service (default), run migrations, create an admin, grant a licence.
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createController } from './controller.js';
import { createLogger } from './logger.js';
import { openDatabase } from './db/database.js';
import { migrateDatabase } from './modules/build-modules.js';
import { serve } from './serve.js';
import { AppError } from './core/app-error.js';
import { VERSION } from './version.js';

const program = new Command('ticketnet-controller').version(VERSION).showHelpAfterError();

const withCommonOptions = (cmd: Command) =>
  cmd
    .option('--db <url>', 'sqlite:PATH or postgres://URL (TICKETNET_DB)')
    .option('--data-dir <dir>', 'generated secrets and files (TICKETNET_DATA_DIR)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|silent (TICKETNET_LOG_LEVEL)');

withCommonOptions(program.command('start', { isDefault: true }).description('run the controller'))
  .option('--port <port>', 'HTTP port (PORT)')
  .option('--host <host>', 'listen address (HOST)')
  .addOption(new Option('--clock <kind>', 'system or manual (TICKETNET_CLOCK)').choices(['system', 'manual']))
  .option('--api-quota <quota>', 'N/<n>(s|m|h) per IP on /api and /v1, or off (TICKETNET_API_QUOTA)')
  .option('--job-run-route', 'enable POST /api/v1/admin/jobs/:name/run (TICKETNET_JOB_RUN_ROUTE)')
  .option('--no-scheduler', 'do not run scheduled jobs in this instance (TICKETNET_SCHEDULER=false)')
  .action(async (opts) => serve(config(opts)));

withCommonOptions(program.command('migrate').description('apply database migrations and exit')).action(
  async (opts) => {
    const handle = await openDatabase(config(opts).db);
    try {
      const applied = await migrateDatabase(handle);
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database already up to date');
    } finally {
      await handle.close();
    }
  },
);

const admin = program.command('admin').description('administrator accounts');
withCommonOptions(admin.command('create').description('create an administrator account'))
  .requiredOption('--email <email>')
  .requiredOption('--password <password>')
  .option('--name <name>', 'display name', 'Administrator')
  .action(async (opts) =>
    withServices(opts, async ({ accounts }) => {
      const account = await accounts.create({
        email: opts.email,
        password: opts.password,
        name: opts.name,
        kind: 'admin',
      });
      console.log(`admin created: ${account.email} (${account.id})`);
    }),
  );

const licence = program.command('licence').description('licences');
withCommonOptions(licence.command('grant').description('grant one period of a plan to a client'))
  .requiredOption('--client <id>', 'client account id')
  .requiredOption('--plan <code>', 'plan code, e.g. RADIUS_ANNUAL')
  .action(async (opts) =>
    withServices(opts, async ({ licences }) => {
      const row = await licences.grant(opts.client, opts.plan, null);
      console.log(`licence ${row.id}: ${row.plan_code} for ${row.client_id} until ${row.expires_at}`);
    }),
  );

withCommonOptions(licence.command('plans').description('list the licence catalogue')).action(async (opts) =>
  withServices(opts, async ({ licences }) => {
    for (const p of await licences.listPlans()) {
      console.log(
        `${p.code}\t${p.product_code}\t${p.period}\t${p.price_xof ?? '-'} XOF\t${p.max_devices ?? ''}`,
      );
    }
  }),
);

function config(opts: Record<string, unknown>): Config {
  const flags: Partial<Record<keyof Config, unknown>> = { ...opts };
  if (opts.scheduler === true) delete flags.scheduler; // commander's default for --no-scheduler
  return loadConfig(process.env, flags);
}

async function withServices(
  opts: Record<string, unknown>,
  fn: (s: Awaited<ReturnType<typeof createController>>['services']) => Promise<void>,
): Promise<void> {
  const cfg = { ...config(opts), scheduler: false };
  const controller = await createController({
    config: cfg,
    logger: createLogger(cfg.logLevel === 'info' ? 'warn' : cfg.logLevel),
  });
  try {
    await fn(controller.services);
  } finally {
    await controller.close();
  }
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof AppError || err instanceof ConfigError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
