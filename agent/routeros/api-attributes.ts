import type { ApiAttributes } from './api-socket.js';
import { decodeWin1252 } from './win1252.js';

/** Reply attributes as text (Windows-1252, lossless); `fromEntries` keeps odd names like `__proto__` as data. */
export function attributesToObject(attrs: ApiAttributes): Record<string, string> {
  return Object.fromEntries([...attrs].map(([name, value]) => [name, decodeWin1252(value)]));
}

/** One attribute as text, or undefined when absent. */
export function attributeText(attrs: ApiAttributes, name: string): string | undefined {
  const value = attrs.get(name);
  return value === undefined ? undefined : decodeWin1252(value);
}
