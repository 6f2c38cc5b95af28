// A NAS's usage now, read from the shared WAN usage store in the router's own day.
import type { UsageService } from '../usage/index.js';
import { routerDay } from '../usage/index.js';
import { usageVerdict, type UsageInput, type UsageVerdict } from './usage-verdict.js';

export interface NasUsage {
  /** The router's local day at `now`. */
  day: string;
  input: UsageInput;
  verdict: UsageVerdict;
}

export async function nasUsage(
  usage: UsageService,
  clientId: string,
  allocationId: string,
  now: Date,
): Promise<NasUsage> {
  const zone = await usage.timeZone(allocationId);
  const local = routerDay(now, zone);
  const totals = await usage.totals(clientId, allocationId, now);
  const input: UsageInput = {
    dayBytes: totals.octetsJour,
    twoHoursBytes: totals.octetsDeuxHeures,
    hoursIntoDay: local.hoursIntoDay,
  };
  return { day: local.day, input, verdict: usageVerdict(input) };
}
