// What the processes of `npm run bench:agents` share: the round-trip figures in the peer's shape,
// and the IPC a client swarm obeys.

/** Round-trip figures of one measurement, with the peer's quantile rule (server.js), so columns compare. */
export function rttFigures(latencies: readonly (number | null)[], conns: number, mode: string) {
  const ok = latencies.filter((x): x is number => x !== null).sort((a, b) => a - b);
  const q = (p: number) =>
    ok.length ? Number(ok[Math.min(ok.length - 1, Math.floor((p / 100) * ok.length))]!.toFixed(3)) : null;
  return {
    conns,
    mode,
    n: latencies.length,
    acked: ok.length,
    lost: latencies.length - ok.length,
    p50: q(50),
    p90: q(90),
    p99: q(99),
    max: q(100),
  };
}

/**
 * A client swarm forked by bench-agents.ts: `{target: N}` grows or shrinks it to N connections,
 * `{stop: true}` ends it, and so does a parent that went away (never linger).
 */
export function obeyParent(setTarget: (n: number) => void, stop: () => void): void {
  process.on('message', (m: { target?: number; stop?: boolean }) => {
    if (m.stop) stop();
    else if (m.target !== undefined) setTarget(m.target);
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
}
