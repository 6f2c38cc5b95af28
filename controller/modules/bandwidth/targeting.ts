// Targeted users for one router and day (docs/bandwidth.md, "Targeted users"): volumes from RADIUS
// accounting and from the router's open sessions (local users), the larger per (user, address);
// users over the individual quota, largest first, up to the programme's maximum. A user throttled
// today stays so until the router's day changes; when no source answers, today's throttles stay
// as they are.
import { iso } from '../../core/clock.js';
import type { BandwidthDeps } from './deps.js';
import type { Programme } from './programme-rules.js';
import type { BandwidthProgrammesTable, BandwidthThrottlesTable } from './tables.js';
import { userVolumes, usersToThrottle, type PairVolume } from './targeted-users.js';

export class Targeting {
  constructor(private readonly deps: BandwidthDeps) {}

  async decide(
    row: BandwidthProgrammesTable,
    programme: Programme,
    day: string,
    dayStartUtc: Date,
    current: readonly BandwidthThrottlesTable[],
    linked: boolean,
  ): Promise<BandwidthThrottlesTable[]> {
    const today = current.filter((t) => t.day === day);
    if (programme.user_daily_quota_gb === null || programme.user_limit_mbps === null) return [];
    const pairs: PairVolume[] = [];
    let answered = 0;
    try {
      const radius = await this.deps.radius.userVolumesSince(row.client_id, row.nas_id, iso(dayStartUtc));
      pairs.push(...radius.map((v) => ({ ...v, source: 'RADIUS' as const })));
      answered++;
    } catch (err) {
      this.deps.logger.warn({ nasId: row.nas_id, err: (err as Error).message }, 'RADIUS volumes not read');
    }
    if (linked) {
      const out = await this.deps.runner.run(
        { clientId: row.client_id, allocationId: row.allocation_id },
        'hotspot.active.usage',
        {},
        this.deps.options.commandWaitMs,
      );
      if (out.kind === 'done') {
        answered++;
        for (const s of out.output.sessions)
          pairs.push({
            username: s.user,
            address: s.address,
            bytes: s.bytes_in + s.bytes_out,
            source: 'ROUTEUR',
          });
      }
    }
    if (answered === 0) return [...today];
    const over = usersToThrottle(
      userVolumes(pairs),
      programme.user_daily_quota_gb,
      programme.max_throttled_users,
    );
    const now = iso(this.deps.clock.now());
    const kept = today.slice(0, programme.max_throttled_users);
    for (const u of over) {
      if (kept.length >= programme.max_throttled_users) break;
      if (kept.some((k) => k.username === u.username)) continue;
      kept.push({
        nas_id: row.nas_id,
        username: u.username,
        client_id: row.client_id,
        limit_mbps: programme.user_limit_mbps,
        framed_ips: JSON.stringify(u.addresses),
        observed_bytes: u.bytes,
        day,
        applied_at: now,
        sources: JSON.stringify(u.sources),
      });
    }
    return kept;
  }
}
