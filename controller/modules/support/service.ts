// The technician hub's API for routes, jobs and other modules (rules: docs/api/support.md). The
// work itself lives in experts.ts, missions.ts and daily.ts; this class holds their context.
import { AppError } from '../../core/app-error.js';
import type { AccountPrincipal } from '../../http/principal.js';
import type { SupportContext } from './context.js';
import * as daily from './daily.js';
import * as experts from './experts.js';
import * as eq from './expert-queries.js';
import * as missions from './missions.js';
import type { NewMission } from './missions.js';
import type { DirectoryQuery, ExpertInput, ProfileInput, ReviewInput, SuperviseInput } from './schemas.js';

export interface AccountLookup {
  get(id: string): Promise<{ id: string; kind: string } | null>;
}

export class SupportService {
  constructor(
    private readonly ctx: SupportContext,
    private readonly accounts: AccountLookup,
  ) {}

  /** Administrators: creates or changes an expert (profile, flags, tier) of a technician account. */
  async setExpert(accountId: string, input: ExpertInput) {
    const account = await this.accounts.get(accountId);
    if (!account) throw new AppError('NOT_FOUND', 'No such account');
    if (account.kind !== 'technician')
      throw new AppError('NOT_A_TECHNICIAN', 'Only a technician account can be an expert');
    return experts.upsertExpert(this.ctx, accountId, input);
  }

  updateOwnProfile(accountId: string, input: ProfileInput) {
    return experts.updateOwnProfile(this.ctx, accountId, input);
  }

  directory(query: DirectoryQuery) {
    return experts.directory(this.ctx, query);
  }

  professional(id: string) {
    return experts.professional(this.ctx, id);
  }

  presence(accountId: string, online: boolean) {
    return experts.presence(this.ctx, accountId, online);
  }

  sweepPresence(now: Date) {
    return experts.sweepPresence(this.ctx, now);
  }

  /** A free mission (the route's), or a paid one the wallet posts PENDING_PAYMENT with its amount. */
  createMission(clientId: string, input: NewMission) {
    return missions.createMission(this.ctx, clientId, input);
  }

  openMissions(accountId: string, limit: number) {
    return missions.openMissions(this.ctx, accountId, limit);
  }

  claim(accountId: string, missionId: string) {
    return missions.claim(this.ctx, accountId, missionId);
  }

  close(accountId: string, missionId: string, resolved: boolean) {
    return missions.close(this.ctx, accountId, missionId, resolved);
  }

  review(clientId: string, missionId: string, input: ReviewInput) {
    return missions.review(this.ctx, clientId, missionId, input);
  }

  addNote(accountId: string, missionId: string, content: string) {
    return missions.addNote(this.ctx, accountId, missionId, content);
  }

  notes(accountId: string, missionId: string) {
    return missions.notes(this.ctx, accountId, missionId);
  }

  supervise(accountId: string, missionId: string, input: SuperviseInput) {
    return missions.supervise(this.ctx, accountId, missionId, input);
  }

  progression(accountId: string) {
    return daily.progression(this.ctx, accountId);
  }

  /** For the wallet, once a paid mission's funds are held: NEW_BOUNTY_TICKET on support:missions. */
  announceBounty(missionId: string) {
    return missions.announceBounty(this.ctx, missionId);
  }

  recomputeReputations(now: Date) {
    return daily.recomputeReputations(this.ctx, now);
  }

  runProgression(now: Date) {
    return daily.runProgression(this.ctx, now);
  }

  runSilence(now: Date) {
    return daily.runSilence(this.ctx, now);
  }

  /** support:missions is read by active technicians who are not internal (no paid-mission broadcast). */
  readonly missionsGuard = async (_channel: string, account: AccountPrincipal): Promise<boolean> => {
    if (account.kind !== 'technician') return false;
    const e = await eq.findExpert(this.ctx.db, account.accountId);
    return !!e && e.is_active === 1 && e.is_internal === 0;
  };
}
