// The small fields of a sales record: price text, MAC address (the seller tag is the tickets
// module's sellerOf).

/**
 * Integer XOF from what the app wrote: `500`, `1000F`, `1 000 F`, `1.000`, `2000 FCFA`, `500.00`.
 * Undefined when it is not a whole number of francs (`500.5`, `gratuit`, empty).
 */
export function parsePrice(text: string | undefined): number | undefined {
  let t = (text ?? '').replace(/\s+/g, '');
  t = t.replace(/^(xof|fcfa|cfa)/i, '').replace(/(fcfa|cfa|xof|f)$/i, '');
  let digits: string | undefined;
  if (/^\d+$/.test(t)) digits = t;
  else if (/^\d{1,3}([.,]\d{3})+$/.test(t)) digits = t.replace(/[.,]/g, '');
  else if (/^\d+[.,]0{1,2}$/.test(t)) digits = t.split(/[.,]/)[0];
  if (digits === undefined) return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `aa-bb-cc-dd-ee-ff` or `AABB.CCDD.EEFF` as `AA:BB:CC:DD:EE:FF`; other text is kept as written. */
export function normaliseMac(text: string | undefined): string | undefined {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  const hex = t.replace(/[:.-]/g, '');
  if (
    /^[0-9A-Fa-f]{12}$/.test(hex) &&
    /^[0-9A-Fa-f]{2}([:-]?[0-9A-Fa-f]{2}){5}$|^[0-9A-Fa-f]{4}(\.[0-9A-Fa-f]{4}){2}$/.test(t)
  ) {
    return hex.toUpperCase().match(/../g)!.join(':');
  }
  return t.slice(0, 64);
}
