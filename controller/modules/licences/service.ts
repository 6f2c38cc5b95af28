import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { AccountsService } from '../accounts/index.js';
import * as q from './queries.js';
import type { LicencesTable } from './tables.js';

export type LicenceStatus =
  { active: true } | { active: false; code: 'RADIUS_LICENSE_INACTIVE' | 'LICENSE_INACTIVE' | 'EXPIRED' };

const DAY_MS = 86_400_000;

export class LicencesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly accounts: AccountsService,
  ) {}

  listPlans() {
    return q.listPlans(this.db);
  }

  /**
   * Grants one period of a plan to a client. A renewal starts where the current licence of the
   * same product ends, so paying early never loses days.
   */
  async grant(clientId: string, planCode: string, grantedBy: string | null): Promise<LicencesTable> {
    const client = await this.accounts.get(clientId);
    if (!client) throw new AppError('CLIENT_NOT_FOUND', 'No client account with this id');
    if (client.kind !== 'client')
      throw new AppError('NOT_A_CLIENT', 'Licences are granted to client accounts only');
    const plan = await q.findPlan(this.db, planCode);
    if (!plan) throw new AppError('PLAN_NOT_FOUND', `Unknown or inactive plan ${planCode}`);
    const now = this.clock.now();
    const latest = await q.latestExpiry(this.db, clientId, plan.product_code);
    const start = latest && new Date(latest) > now ? new Date(latest) : now;
    const row: LicencesTable = {
      id: newId(),
      client_id: clientId,
      plan_code: plan.code,
      product_code: plan.product_code,
      status: 'ACTIVE',
      starts_at: iso(start),
      expires_at: iso(new Date(start.getTime() + plan.duration_days * DAY_MS)),
      granted_by: grantedBy,
      created_at: iso(now),
    };
    await q.insertLicence(this.db, row);
    return row;
  }

  listForClient(clientId: string) {
    return q.listForClient(this.db, clientId);
  }

  /** Is product P active for client C now? Names why not: never licensed, or expired. */
  async status(clientId: string, productCode: string): Promise<LicenceStatus> {
    const now = iso(this.clock.now());
    if ((await q.countCurrent(this.db, clientId, productCode, now)) > 0) return { active: true };
    const latest = await q.latestExpiry(this.db, clientId, productCode);
    if (latest && latest <= now) return { active: false, code: 'EXPIRED' };
    return { active: false, code: productCode === 'RADIUS' ? 'RADIUS_LICENSE_INACTIVE' : 'LICENSE_INACTIVE' };
  }

  /** Route guard: throws 403 with the licence code when the product is not active. */
  async requireActive(clientId: string, productCode: string): Promise<void> {
    const s = await this.status(clientId, productCode);
    if (!s.active) {
      const message =
        s.code === 'EXPIRED' ? `The ${productCode} licence has expired` : `No active ${productCode} licence`;
      throw new AppError(s.code, message);
    }
  }
}
