// The router's Internet link as seen by an echo to a host past the WAN: round trip and loss. The
// default is a terrestrial link (a few ms to 45 ms, no loss); the satellite profile is a
// geostationary dish: about 600 ms and 2 percent of echoes lost. Both `/ping` and the ICMP probes
// of `/tool netwatch` (7.4+) go through it, so the two agree as they would on one router.
//
// Loss is spread evenly rather than drawn at random: one echo in every 50 is lost, so a test of a
// few hundred echoes sees exactly the profile's rate and a run repeats.
import type { Prng } from './prng.js';

export interface WanLinkProfile {
  /** Round trip at rest, in ms. */
  rttMs: number;
  /** Spread around it (each echo within ± this), in ms. */
  spreadMs: number;
  /** Percent of echoes lost, 0 to 100. */
  lossPct: number;
  /**
   * Round trips (ms) the echoes take in turn from the moment the profile is set, in place of the
   * spread around `rttMs` (sim assumption: for a test that must know every echo).
   */
  sequenceMs?: readonly number[];
}

/** A geostationary satellite link (a dish for a remote site). */
export const SATELLITE_LINK: WanLinkProfile = { rttMs: 600, spreadMs: 20, lossPct: 2 };

/** One echo: its round trip in microseconds, or null when lost. */
export type Echo = number | null;

export class WanLink {
  #sent = 0;
  #profile: WanLinkProfile | undefined;
  /** Echoes answered since the profile was set (the position in its sequence). */
  #answered = 0;

  constructor(
    private readonly rng: Prng,
    profile: WanLinkProfile | undefined,
  ) {
    this.#profile = profile;
  }

  /** Changeable while the router runs (the dish's link gets worse, a storm passes). */
  get profile(): WanLinkProfile | undefined {
    return this.#profile;
  }

  set profile(profile: WanLinkProfile | undefined) {
    this.#profile = profile;
    this.#answered = 0;
  }

  /** The next echo over the link. */
  echo(): Echo {
    this.#sent++;
    const p = this.#profile;
    if (!p) return this.rng.int(800, 45_000);
    if (p.lossPct > 0 && this.#sent % Math.round(100 / p.lossPct) === 0) return null;
    const sequence = p.sequenceMs;
    const ms =
      sequence && sequence.length > 0
        ? sequence[this.#answered++ % sequence.length]!
        : p.rttMs + (this.rng.next() * 2 - 1) * p.spreadMs;
    return Math.max(1, Math.round(ms * 1000));
  }
}

/** Summary of a series of echoes as RouterOS netwatch ICMP probes print it. */
export interface EchoStats {
  sent: number;
  received: number;
  lossPct: number;
  /** Microseconds; undefined when nothing came back. */
  min?: number;
  avg?: number;
  max?: number;
  /** Largest minus smallest round trip, as RouterOS defines `rtt-jitter` (its manual: "max - min"). */
  jitter?: number;
  stdev?: number;
}

export function echoStats(echoes: readonly Echo[]): EchoStats {
  const rtts = echoes.filter((e): e is number => e !== null);
  const sent = echoes.length;
  const lossPct = sent === 0 ? 0 : Math.round((100 * (sent - rtts.length)) / sent);
  if (rtts.length === 0) return { sent, received: 0, lossPct };
  const avg = rtts.reduce((a, b) => a + b, 0) / rtts.length;
  const min = Math.min(...rtts);
  const max = Math.max(...rtts);
  const stdev = Math.sqrt(rtts.reduce((a, b) => a + (b - avg) ** 2, 0) / rtts.length);
  return {
    sent,
    received: rtts.length,
    lossPct,
    min,
    avg: Math.round(avg),
    max,
    jitter: max - min,
    stdev: Math.round(stdev),
  };
}
