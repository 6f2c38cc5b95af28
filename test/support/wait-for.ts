// Waiting for an observable state instead of sleeping: poll a condition until it holds, within a
// bounded deadline, and fail with what was awaited when it never does.

export interface WaitOptions {
  /** Longest wait (default 5,000 ms). */
  timeoutMs?: number;
  /** Pause between two checks (default 10 ms). */
  everyMs?: number;
  /** What is awaited, for the error message. */
  what?: string;
}

/** Resolves with the first value of `check` that is neither undefined nor false. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 5000, everyMs = 10, what = 'condition' }: WaitOptions = {},
): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUp) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
