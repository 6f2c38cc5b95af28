import type { z } from 'zod';

/** One log-friendly line naming the first few fields a zod parse refused, e.g. `body.id: Invalid UUID`. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  // A few issues are enough to find the bug; the full list can be long for arrays.
  const shown = error.issues.slice(0, 3).map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${path === '' ? '(root)' : path}: ${issue.message}`;
  });
  const more = error.issues.length > shown.length ? ` (+${error.issues.length - shown.length} more)` : '';
  return shown.join('; ') + more;
}
