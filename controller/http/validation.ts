import type { z } from 'zod';
import { AppError, type FieldIssue } from '../core/app-error.js';

/** Maps zod issues to `details[]` entries naming the field (dotted path) and the reason. */
export function fieldIssues(error: z.ZodError, prefix?: string): FieldIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || (prefix ?? 'body');
    return { field, message: issue.message };
  });
}

/** Parses input with a schema or throws 400 VALIDATION_ERROR with the offending fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new AppError('VALIDATION_ERROR', `Invalid ${where}`, { details: fieldIssues(result.error) });
}
