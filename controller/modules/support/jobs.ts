// The hub's scheduled jobs.
import type { JobDefinition } from '../../jobs/scheduler.js';
import type { SupportService } from './service.js';

/** Every 15 s: technicians silent for 90 s go offline (and it is published). */
export function presenceSweepJob(deps: { support: SupportService }): JobDefinition {
  return {
    name: 'SUPPORT_PRESENCE_SWEEP',
    cadence: { everyMs: 15_000 },
    run: (now) => deps.support.sweepPresence(now),
  };
}

/** Daily: reputation scores age (their reviews' weights halve every six months). */
export function reputationJob(deps: { support: SupportService }): JobDefinition {
  return {
    name: 'SUPPORT_REPUTATION',
    cadence: { dailyAtUtc: '02:00' },
    run: (now) => deps.support.recomputeReputations(now),
  };
}

/** Daily, after the scores: promotion and demotion, one step at most. */
export function progressionJob(deps: { support: SupportService }): JobDefinition {
  return {
    name: 'SUPPORT_PROGRESSION',
    cadence: { dailyAtUtc: '02:30' },
    run: (now) => deps.support.runProgression(now),
  };
}

/** Daily: 45 days without a traced mission warn, 90 delist. */
export function silenceJob(deps: { support: SupportService }): JobDefinition {
  return {
    name: 'SUPPORT_SILENCE',
    cadence: { dailyAtUtc: '03:00' },
    run: (now) => deps.support.runSilence(now),
  };
}
