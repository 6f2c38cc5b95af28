// Milliseconds on the monotonic clock, as `performance.now()` gives them, without its cost: the
// global `performance` loads Node's perf_hooks (a dozen internal modules, about 0.2 MiB of the
// agent's idle memory) on first use. Only differences between two readings mean anything.
const origin = process.hrtime.bigint();

/** Milliseconds since an arbitrary origin on the monotonic clock (never goes back, ignores clock steps). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() - origin) / 1e6;
}
