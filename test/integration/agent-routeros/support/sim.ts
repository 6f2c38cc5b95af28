import { RouterSim } from '../../../routeros-sim/router-sim.js';
import type { RouterSimOptions } from '../../../routeros-sim/router-sim.js';
import { RouterConnection } from '../../../../agent/routeros/router-connection.js';
import type { RouterConnectionOptions } from '../../../../agent/routeros/router-connection.js';

export const SIM_SERIAL = 'AC40A1B2C3D4';

export async function startSim(options: Partial<RouterSimOptions> = {}): Promise<RouterSim> {
  const sim = new RouterSim({
    serial: SIM_SERIAL,
    version: '7.19',
    password: 'secret',
    seed: { hotspotUsers: 25, salesScripts: 3 },
    ftpPort: 0,
    backupDelayMs: 20,
    ...options,
  });
  await sim.start();
  return sim;
}

export function connectTo(sim: RouterSim, options: Partial<RouterConnectionOptions> = {}): RouterConnection {
  return new RouterConnection({
    host: '127.0.0.1',
    port: sim.port,
    user: 'admin',
    password: 'secret',
    timeoutMs: 3000,
    connectTimeoutMs: 2000,
    ...options,
  });
}
