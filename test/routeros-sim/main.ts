// CLI: ticketnet-routeros-sim --port 8728 --serial HEX --version 7.19 ...
// Prints one JSON line with the ports once listening; stops on SIGTERM/SIGINT.
import { Command, InvalidArgumentError } from 'commander';
import { isArchitecture } from './board-profiles.js';
import type { Architecture } from './board-profiles.js';
import { ControlServer } from './control-server.js';
import { RouterSim } from './router-sim.js';

const int = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
};

const program = new Command('ticketnet-routeros-sim')
  .description('Simulated MikroTik RouterOS router speaking the real API protocol (test and demo tool)')
  .option('--port <n>', 'API port (0 = any free port)', int, 8728)
  .option('--host <ip>', 'address to listen on', '127.0.0.1')
  .requiredOption('--serial <hex>', 'RouterBOARD serial number')
  .option('--version <x.y[.z]>', 'RouterOS version', '7.19')
  .option('--identity <name>', 'system identity', 'MikroTik')
  .option('--model <code>', 'RouterBOARD model code')
  .option('--architecture <arch>', 'arm, arm64, x86, mipsbe or tile', (v: string): Architecture => {
    if (!isArchitecture(v)) throw new InvalidArgumentError('unknown architecture');
    return v;
  })
  .option('--username <name>', 'API/FTP user', 'admin')
  .option('--password <pw>', 'API/FTP password', '')
  .option('--users <n>', 'seeded hotspot users', int)
  .option('--sales <n>', 'seeded sales scripts', int)
  .option('--resellers <names>', 'comma-separated reseller names for "vendu par" comments')
  .option(
    '--reseller-fleet',
    'seed the 9 reseller accounts (comments with balance and movements), see README',
  )
  .option('--interim-timers', 'send RADIUS Interim-Updates on real timers')
  .option(
    '--radius-incoming-port <n>',
    'UDP port for /radius incoming (CoA/Disconnect) instead of the configured one',
    int,
  )
  .option('--free-hdd <bytes>', 'free flash bytes', int)
  .option('--total-hdd <bytes>', 'total flash bytes', int)
  .option('--ftp-port <n>', 'start the FTP server on this port (0 = any)', int)
  .option('--control-port <n>', 'start the HTTP control API on 127.0.0.1:<n> (0 = any)', int)
  .option('--faults <json>', 'faults to start with, as JSON')
  .helpOption('-h, --help')
  .version('0.1.0', '-V, --sim-version');

program.parse();
const o = program.opts<{
  port: number;
  host: string;
  serial: string;
  version: string;
  identity: string;
  model?: string;
  architecture?: Architecture;
  username: string;
  password: string;
  users?: number;
  sales?: number;
  resellers?: string;
  resellerFleet?: boolean;
  interimTimers?: boolean;
  radiusIncomingPort?: number;
  freeHdd?: number;
  totalHdd?: number;
  ftpPort?: number;
  controlPort?: number;
  faults?: string;
}>();

const sim = new RouterSim({
  port: o.port,
  host: o.host,
  serial: o.serial,
  version: o.version,
  identity: o.identity,
  model: o.model,
  architecture: o.architecture,
  username: o.username,
  password: o.password,
  seed: {
    hotspotUsers: o.users,
    salesScripts: o.sales,
    resellers: o.resellers?.split(',').filter(Boolean),
    resellerFleet: o.resellerFleet ?? false,
  },
  interimTimers: o.interimTimers ?? false,
  radiusIncomingPort: o.radiusIncomingPort,
  freeHddBytes: o.freeHdd,
  totalHddBytes: o.totalHdd,
  ftpPort: o.ftpPort,
});
if (o.faults) sim.faults.set(JSON.parse(o.faults));
await sim.start();
let control: ControlServer | undefined;
if (o.controlPort !== undefined) {
  control = new ControlServer(sim);
  await control.listen(o.controlPort);
}
console.log(
  JSON.stringify({
    event: 'listening',
    host: o.host,
    port: sim.port,
    ftpPort: sim.ftpPort ?? null,
    controlPort: control?.port ?? null,
    serial: sim.state.identity.serial,
    version: sim.caps.versionLabel,
  }),
);

let stopping = false;
const shutdown = (): void => {
  if (stopping) return;
  stopping = true;
  void Promise.all([sim.stop(), control?.close()]).then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
