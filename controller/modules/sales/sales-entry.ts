// Rules that turn one raw entry of the local ticket manager's history into a sales record.
// An entry's name is `date-|-time-|-code-|-price-|-ip-|-mac-|-validity-|-profile-|-comment`; a
// reconnection has an empty date slot and the ticket's expiry date-time as a tenth field.
//   - VENTE: a sale, the only kind of row that is money. Its date slot gives `sold_at`; when that
//     slot is empty or unreadable the date was lost and `sold_at` is null (never invented).
//   - CONNEXION: empty date slot AND a readable date-time in the tenth field. Usage only.
// Anything else (fewer than 9 or more than 10 fields, no voucher code) is unreadable and skipped.
import { createHash } from 'node:crypto';
import { sellerOf } from '../tickets/index.js';
import type { SalesRecordsTable, SalesRecordType } from './tables.js';
import { isoFrom, monthOfTag, parseClock, parseRouterDate, parseRouterDateTime } from './sales-dates.js';
import { normaliseMac, parsePrice } from './sales-fields.js';

export const SALES_SEPARATOR = '-|-';

export interface SalesEntry {
  script_id: string;
  name: string;
  owner?: string | undefined;
  comment?: string | undefined;
  source?: string | undefined;
}

/** What the rules read from one script entry: the record's fields, before ids and provenance. */
export type ParsedSale = Pick<
  SalesRecordsTable,
  | 'type'
  | 'sold_at'
  | 'expires_at'
  | 'month'
  | 'voucher_code'
  | 'price_xof'
  | 'client_ip'
  | 'client_mac'
  | 'duration_label'
  | 'profile_name'
  | 'comment'
  | 'reseller_name'
>;

export type SaleParse = { ok: true; sale: ParsedSale } | { ok: false; reason: string };

const text = (value: string | undefined, max: number): string | null => {
  const t = value?.trim() ?? '';
  return t ? t.slice(0, max) : null;
};

export function parseSalesEntry(entry: SalesEntry): SaleParse {
  const fields = entry.name.split(SALES_SEPARATOR);
  if (fields.length !== 9 && fields.length !== 10) {
    return { ok: false, reason: `${fields.length} fields; a record has 9, or 10 for a reconnection` };
  }
  const [date = '', time, code, price, ip, mac, validity, profile, comment, last] = fields;
  const voucherCode = text(code, 64);
  if (voucherCode === null) return { ok: false, reason: 'no voucher code' };
  const dateSlot = date.trim();
  const expiresAt = parseRouterDateTime(last) ?? null;
  const type: SalesRecordType = dateSlot === '' && expiresAt !== null ? 'CONNEXION' : 'VENTE';

  let soldAt: string | null = null;
  let month: string | null = null;
  if (type === 'VENTE') {
    const day = parseRouterDate(dateSlot);
    if (day !== undefined) soldAt = isoFrom(day, parseClock(time));
    // An undated sale has no month: it counts in totals, never in a monthly breakdown.
    month = soldAt?.slice(0, 7) ?? null;
  } else {
    // A reconnection is not dated in its name; the app's own records say which month it fell in.
    month = parseRouterDate(entry.source)?.slice(0, 7) ?? monthOfTag(entry.owner) ?? null;
  }
  const commentText = text(comment, 500);
  return {
    ok: true,
    sale: {
      type,
      sold_at: soldAt,
      expires_at: expiresAt,
      month,
      voucher_code: voucherCode,
      price_xof: parsePrice(price) ?? null,
      client_ip: text(ip, 64),
      client_mac: normaliseMac(mac) ?? null,
      duration_label: text(validity, 64),
      profile_name: text(profile, 128),
      comment: commentText,
      reseller_name: sellerOf(commentText ?? undefined) ?? null,
    },
  };
}

/** Identity of an entry: the same event read twice (or from a re-enrolled router) is one record. */
export function entryHash(entry: SalesEntry): string {
  return createHash('sha256')
    .update(`${entry.name}\n${entry.owner ?? ''}`)
    .digest('hex');
}

/** `*1A` → 26 (for ordering); 0 when unreadable. */
export function scriptNumber(id: string): number {
  return /^\*[0-9A-Fa-f]{1,12}$/.test(id) ? parseInt(id.slice(1), 16) : 0;
}
