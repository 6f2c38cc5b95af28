import type { Api } from '../../http/api.js';
import type { AccountsService } from './service.js';
import { loginBody, registerBody } from './schemas.js';

export function accountsRoutes(api: Api, deps: { accounts: AccountsService }): void {
  const { accounts } = deps;
  api.route(
    {
      method: 'post',
      path: '/api/v1/auth/register',
      summary: 'Create a client, technician or partner account',
      tags: ['accounts'],
      auth: 'public',
      body: registerBody,
      status: 201,
    },
    async (_ctx, { body }) => ({ success: true, data: await accounts.register(body) }),
  );

  api.route(
    {
      method: 'post',
      path: '/api/v1/auth/login',
      limiter: 'credentials',
      summary: 'Exchange e-mail and password for a token',
      tags: ['accounts'],
      auth: 'public',
      body: loginBody,
    },
    async (_ctx, { body }) => ({ success: true, data: await accounts.login(body.email, body.password) }),
  );

  api.route(
    {
      method: 'get',
      path: '/api/v1/auth/me',
      summary: 'The account behind the token',
      tags: ['accounts'],
      auth: ['client', 'technician', 'partner', 'admin'],
    },
    async (_ctx, { principal }) => ({
      success: true,
      data: { account: await accounts.get(principal!.subjectId) },
    }),
  );
}
