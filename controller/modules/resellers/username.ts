/** Reseller usernames are lowercased and stripped of every whitespace character. */
export const normaliseUsername = (raw: string): string => raw.toLowerCase().replace(/\s+/g, '');
