// Round trip, jitter and loss of the router's Internet link, measured on the router itself. Jitter
// is the mean gap between successive round trips, always from a short `/ping` series: a netwatch
// ICMP probe (7.4+) prints only min, max, mean, standard deviation and `rtt-jitter`, which is
// max − min of its last test (RouterOS manual, "Netwatch"), so the gaps cannot be had from it.
// Where the version has the probes, round trip and loss are theirs (20 echoes a test, run on the
// router between two collections); before, or while no probe has run, the `/ping` series gives
// all three.
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { parseRouterOsDuration, parseRouterOsInteger } from '../routeros/ros-values.js';

export interface LinkQuality {
  rtt_ms: number | null;
  jitter_ms: number | null;
  packet_loss_pct: number | null;
  /** Where the round trip and loss come from (jitter always comes from `/ping`). */
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

/** The round trips (ms) that came back from one target, and how many echoes went out. */
export interface PingSeries {
  sent: number;
  rtts: number[];
}

/** Pings every target from the router, in parallel. */
export async function pingSeries(
  router: RouterConnection,
  targets: readonly string[],
  plan: PingPlan,
  call: RouterCallOptions = {},
): Promise<PingSeries[]> {
  return Promise.all(
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
}

/** Round trip, jitter and loss of ping series: the mean answer, the mean gap, lost over sent. */
export function pingFigures(series: readonly PingSeries[]): LinkQuality {
  const sent = series.reduce((n, s) => n + s.sent, 0);
  const all = series.flatMap((s) => s.rtts);
  return {
    rtt_ms: all.length === 0 ? null : round2(all.reduce((a, b) => a + b, 0) / all.length),
    jitter_ms: meanGap(series.map((s) => s.rtts)),
    packet_loss_pct: sent === 0 ? null : round2((100 * (sent - all.length)) / sent),
    source: 'ping',
  };
}

/** Pings every target from the router (in parallel) and sums up what came back. */
export async function pingQuality(
  router: RouterConnection,
  targets: readonly string[],
  plan: PingPlan,
  call: RouterCallOptions = {},
): Promise<LinkQuality> {
  return pingFigures(await pingSeries(router, targets, plan, call));
}

export interface LinkQualityPlan {
  /** The version's netwatch has ICMP probes (`RouterCapabilities.netwatchIcmp`). */
  netwatchIcmp: boolean;
  /** Seconds between two probes, the collection interval. */
  intervalS: number;
  ping: PingPlan;
}

/**
 * One measure of the link. With netwatch ICMP probes that have run: their round trip and loss, and
 * the jitter of a `/ping` series taken meanwhile (null when that ping fails: the probes' figures
 * are kept). Otherwise the `/ping` series gives all three.
 */
export async function measureLinkQuality(
  router: RouterConnection,
  targets: readonly string[],
  plan: LinkQualityPlan,
  call: RouterCallOptions = {},
): Promise<LinkQuality> {
  if (!plan.netwatchIcmp) return pingQuality(router, targets, plan.ping, call);
  // Both settle before anything is answered, so a failure leaves no command running behind it.
  const [probes, ping] = await Promise.all([
    settle(netwatchQuality(router, targets, plan.intervalS, call)),
    settle(pingSeries(router, targets, plan.ping, call)),
  ]);
  if ('err' in probes) throw probes.err;
  if (probes.value) {
    const jitter = 'value' in ping ? meanGap(ping.value.map((s) => s.rtts)) : null;
    return { ...probes.value, jitter_ms: jitter };
  }
  if ('err' in ping) throw ping.err;
  return pingFigures(ping.value);
}

const settle = <T>(p: Promise<T>): Promise<{ value: T } | { err: unknown }> =>
  p.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );

/**
 * Keeps one ICMP netwatch probe per target (marked, probing every `intervalS`; entries the agent
 * did not make are left alone) and reads the round trip and loss of their latest tests; jitter is
 * null (their `rtt-jitter` is max − min, not the mean gap). Undefined when no probe has run yet:
 * the caller pings instead.
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
  }
  if (sent === 0) return undefined;
  return {
    rtt_ms: answered === 0 ? null : round2(weighted / answered),
    jitter_ms: null,
    packet_loss_pct: round2((100 * lost) / sent),
    source: 'netwatch',
  };
}
