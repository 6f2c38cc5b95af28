// `router.login.set`: the agent takes the router login the app deposited with the controller.
// It proves the login on a connection of its own first (a wrong password must not cut the agent
// off its router), then keeps it on disk and uses it from the next call on.
import type { CommandOutput, CommandParams } from '../../protocol/index.js';
import { RouterConnection } from '../routeros/router-connection.js';
import type { RouterLoginStore } from '../state/router-login-store.js';

/** How long the trial login may take (TCP connect, login and one read). */
const TRIAL_TIMEOUT_MS = 10_000;

export async function setRouterLogin(
  router: RouterConnection,
  p: CommandParams<'router.login.set'>,
  options: { store: RouterLoginStore | undefined; signal?: AbortSignal },
): Promise<CommandOutput<'router.login.set'>> {
  if (!options.store) throw new Error('this agent keeps no state directory: a router login cannot be kept');
  const login = { user: p.user, password: p.password, port: p.api_port ?? router.port };
  const trial = new RouterConnection({
    host: router.host,
    ...login,
    timeoutMs: TRIAL_TIMEOUT_MS,
    connectTimeoutMs: TRIAL_TIMEOUT_MS,
  });
  try {
    // A read proves the account may use the API, not only that the password is right.
    await trial.print('/system/identity', options.signal ? { signal: options.signal } : {});
  } finally {
    await trial.close();
  }
  await options.store.save(login);
  router.useLogin(login);
  return { applied: true, api_port: login.port };
}
