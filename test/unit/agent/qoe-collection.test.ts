// The pure rules of the agent's network-quality collection: round trips as RouterOS prints them,
// jitter as the mean gap between successive round trips (never netwatch's max − min), the settings,
// and which versions measure with netwatch ICMP probes.
import { expect } from 'chai';
import { ConfigError } from '../../../agent/config.js';
import { capabilitiesFor } from '../../../agent/routeros/capabilities.js';
import type { RouterConnection } from '../../../agent/routeros/router-connection.js';
import {
  QOE_NETWATCH_MARK,
  meanGap,
  measureLinkQuality,
  parseRttMs,
} from '../../../agent/telemetry/link-quality.js';
import { qoeSettings } from '../../../agent/telemetry/qoe-settings.js';

describe('agent network-quality rules', () => {
  it('reads round trips as RouterOS prints them', () => {
    const cases: [string | undefined, number | undefined][] = [
      ['600ms12us', 600.012],
      ['12ms', 12],
      ['12.5ms', 12.5],
      ['1s', 1000],
      ['1s200ms', 1200],
      ['', undefined],
      [undefined, undefined],
      ['timeout', undefined],
    ];
    for (const [text, ms] of cases) expect(parseRttMs(text), String(text)).to.equal(ms);
  });

  it('takes jitter as the mean gap between successive round trips of each series', () => {
    const cases: [number[][], number | null][] = [
      [[], null],
      [[[600]], null],
      [[[600, 610]], 10],
      [[[600, 610, 590]], 15],
      // Gaps never cross from one target's series to the next.
      [
        [
          [600, 610],
          [20, 30],
        ],
        10,
      ],
      [[[600], [20, 24, 20]], 4],
    ];
    for (const [series, jitter] of cases) expect(meanGap(series), JSON.stringify(series)).to.equal(jitter);
  });

  it('takes an interval of 15 s to 15 min and 1 to 8 IPv4 targets', () => {
    expect(qoeSettings('60', undefined)).to.deep.equal({
      intervalMs: 60_000,
      targets: ['1.1.1.1', '8.8.8.8'],
    });
    expect(qoeSettings('15', '9.9.9.9, 9.9.9.9')).to.deep.equal({ intervalMs: 15_000, targets: ['9.9.9.9'] });
    expect(qoeSettings('900', '')).to.deep.include({ intervalMs: 900_000 });
    for (const [interval, targets] of [
      ['14', undefined],
      ['901', undefined],
      ['60.5', undefined],
      ['sixty', undefined],
      ['60', 'example.com'],
      ['60', '1.1.1.1,,8.8.8.8'],
      ['60', Array.from({ length: 9 }, (_, i) => `10.0.0.${i + 1}`).join(',')],
    ] as const)
      expect(() => qoeSettings(interval, targets), `${interval} ${targets}`).to.throw(ConfigError);
  });

  it('measures with netwatch ICMP probes from RouterOS 7.4, by /ping before', () => {
    const table: [string, boolean][] = [
      ['6.49.10', false],
      ['7.3.1', false],
      ['7.4', true],
      ['7.19', true],
    ];
    for (const [version, netwatch] of table)
      expect(capabilitiesFor(version).netwatchIcmp, version).to.equal(netwatch);
  });

  it("keeps the probes' round trip and loss with a null jitter when the /ping fails, never their max − min", async () => {
    const probe = {
      '.id': '*1',
      comment: `${QOE_NETWATCH_MARK}1.1.1.1`,
      interval: '60s',
      'sent-count': '20',
      'response-count': '19',
      'rtt-avg': '600ms',
      'rtt-jitter': '40ms',
    };
    const pings: string[] = [];
    /** A router whose netwatch holds `entries` and whose /ping is refused. */
    const router = (entries: Record<string, string>[]) =>
      ({
        print: async () => entries,
        add: async () => '*2',
        write: async (path: string) => {
          pings.push(path);
          throw new Error('ping refused');
        },
      }) as unknown as RouterConnection;
    const plan = { netwatchIcmp: true, intervalS: 60, ping: { count: 5, intervalMs: 200 } };
    expect(await measureLinkQuality(router([probe]), ['1.1.1.1'], plan)).to.deep.equal({
      rtt_ms: 600,
      jitter_ms: null,
      packet_loss_pct: 5,
      source: 'netwatch',
    });
    expect(pings).to.deep.equal(['/ping']);
    // Without the probes' figures, the /ping's failure is the measure's.
    let failure: unknown;
    await measureLinkQuality(router([]), ['1.1.1.1'], plan).catch((err: unknown) => (failure = err));
    expect((failure as Error | undefined)?.message).to.equal('ping refused');
  });
});
