// Round trip, jitter and loss of the router's Internet link, measured on the router itself: from
// the ICMP probes of `/tool netwatch` where the version has them (7.4+: they run on the router
// between two collections, the agent only reads their figures), else by `/ping` at collection time.
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsDuration, parseRouterOsInteger } from '../routeros/ros-values.js';

export interface LinkQuality {
  rtt_ms: number | null;
  jitter_ms: number | null;
  packet_loss_pct: number | null;
  /** Where the figures come from. */
  source: 'netwatch' | 'ping';
}

export interface PingPlan {
  /** Echoes per target. */
  count: number;
  /** Gap between two echoes, ms. */
  intervalMs: number;
}

/** Netwatch entries the agent owns carry this comment, followed by their target. */
export const QOE_NETWATCH_MARK = 'ticketnet:qoe:';
const NETWATCH = '/tool/netwatch';
/** Echoes per netwatch ICMP probe (RouterOS default 10). */
const NETWATCH_PACKETS = 20;

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Milliseconds in a RouterOS round trip ("600ms12us", "12ms", "1s", or "12.5ms"); undefined if none. */
export function parseRttMs(text: string | undefined): number | undefined {
  const t = text?.trim() ?? '';
  const decimal = /^(\d+(?:\.\d+)?)ms$/.exec(t);
  if (decimal) return Number(decimal[1]);
  const seconds = parseRouterOsDuration(t);
  return seconds === undefined ? undefined : seconds * 1000;
}

/** Jitter as the mean gap between successive round trips of each series; null with fewer than two. */
export function meanGap(series: readonly (readonly number[])[]): number | null {
  let sum = 0;
  let gaps = 0;
  for (const rtts of series) {
    for (let i = 1; i < rtts.length; i++) {
      sum += Math.abs(rtts[i]! - rtts[i - 1]!);
      gaps++;
    }
  }
  return gaps === 0 ? null : round2(sum / gaps);
}

/** Pings every target from the router (in parallel) and sums up what came back. */
export async function pingQuality(
  router: RouterConnection,
  targets: readonly string[],
  plan: PingPlan,
  call: RouterCallOptions = {},
): Promise<LinkQuality> {
  const series = await Promise.all(
    targets.map(async (address) => {
      const replies = await router.write(
        '/ping',
        { address, count: String(plan.count), interval: `${plan.intervalMs}ms` },
        call,
      );
      const rtts: number[] = [];
      for (const r of replies) {
        const ms = r.status === undefined || r.status === '' ? parseRttMs(r.time) : undefined;
        if (ms !== undefined) rtts.push(ms);
      }
      return { sent: parseRouterOsInteger(replies.at(-1)?.sent) ?? replies.length, rtts };
    }),
  );
  const sent = series.reduce((n, s) => n + s.sent, 0);
  const all = series.flatMap((s) => s.rtts);
  return {
    rtt_ms: all.length === 0 ? null : round2(all.reduce((a, b) => a + b, 0) / all.length),
    jitter_ms: meanGap(series.map((s) => s.rtts)),
    packet_loss_pct: sent === 0 ? null : round2((100 * (sent - all.length)) / sent),
    source: 'ping',
  };
}

/**
 * Keeps one ICMP netwatch probe per target (marked, probing every `intervalS`; entries the agent
 * did not make are left alone) and reads their latest figures. Undefined when no probe has run
 * yet: the caller pings instead.
 */
export async function netwatchQuality(
  router: RouterConnection,
  targets: readonly string[],
  intervalS: number,
  call: RouterCallOptions = {},
): Promise<LinkQuality | undefined> {
  const entries = await router.print(NETWATCH, call);
  const ours = entries.filter((e) => (e.comment ?? '').startsWith(QOE_NETWATCH_MARK));
  const wanted = new Set(targets);
  const stale = ours.filter((e) => !wanted.has((e.comment ?? '').slice(QOE_NETWATCH_MARK.length)));
  if (stale.length > 0)
    await router.remove(
      NETWATCH,
      stale.map((e) => e['.id']!),
      call,
    );
  const interval = `${intervalS}s`;
  let sent = 0;
  let lost = 0;
  let weighted = 0;
  let answered = 0;
  const jitters: number[] = [];
  for (const target of targets) {
    const entry = ours.find((e) => e.comment === `${QOE_NETWATCH_MARK}${target}`);
    if (!entry) {
      await router.add(
        NETWATCH,
        {
          host: target,
          type: 'icmp',
          interval,
          'packet-count': String(NETWATCH_PACKETS),
          comment: `${QOE_NETWATCH_MARK}${target}`,
        },
        call,
      );
      continue;
    }
    if (entry.interval !== interval || entry.disabled === 'true')
      await router.set(NETWATCH, entry['.id']!, { interval, disabled: 'no' }, call);
    const s = parseRouterOsInteger(entry['sent-count']);
    const r = parseRouterOsInteger(entry['response-count']);
    if (!s) continue;
    sent += s;
    lost += s - (r ?? 0);
    const avg = parseRttMs(entry['rtt-avg']);
    if (avg !== undefined && r) {
      weighted += avg * r;
      answered += r;
    }
    const jitter = parseRttMs(entry['rtt-jitter']);
    if (jitter !== undefined) jitters.push(jitter);
  }
  if (sent === 0) return undefined;
  return {
    rtt_ms: answered === 0 ? null : round2(weighted / answered),
    jitter_ms: jitters.length === 0 ? null : round2(jitters.reduce((a, b) => a + b, 0) / jitters.length),
    packet_loss_pct: round2((100 * lost) / sent),
    source: 'netwatch',
  };
}
