// `sales.export`: one page of the local ticket manager's sales history, which it keeps as one
// `/system/script` entry per event (the whole record in the entry's name). The agent stays dumb on
// purpose: it only picks entries whose name holds the `-|-` separator and hands them over raw;
// classifying sales and reconnections, dates and prices is the controller's job (see
// docs/decisions.md), so a parsing fix never needs a fleet of agents upgraded.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';

type SalesExport = CommandOutput<'sales.export'>;
type Entry = SalesExport['entries'][number];

export const SALES_SEPARATOR = '-|-';
export const DEFAULT_SALES_PAGE = 1000;
/** Longer sources are user scripts, not the app's date: left out of the entry. */
const MAX_SOURCE = 64;
const PROPS = ['.id', 'name', 'owner', 'comment', 'source'];

/** `*1A` → 26; undefined for anything that is not a RouterOS item id. */
export function scriptNumber(id: string | undefined): number | undefined {
  return id !== undefined && /^\*[0-9A-Fa-f]{1,12}$/.test(id) ? parseInt(id.slice(1), 16) : undefined;
}

export async function exportSales(
  router: RouterConnection,
  options: RouterCallOptions & { cursor?: string | undefined; limit?: number | undefined } = {},
): Promise<SalesExport> {
  const after = options.cursor === undefined ? -1 : (scriptNumber(options.cursor) ?? -1);
  const limit = options.limit ?? DEFAULT_SALES_PAGE;
  const found: { n: number; entry: Entry }[] = [];
  let scanned = 0;
  // The whole menu is listed and filtered here rather than with a `?>.id=` query: a router that
  // ignored or refused that query would end the paging early and lose history silently.
  await router.printEach(
    '/system/script',
    (r) => {
      const n = scriptNumber(r['.id']);
      if (n === undefined || n <= after) return;
      scanned++;
      const name = r.name ?? '';
      if (!name.includes(SALES_SEPARATOR) || name.length > 2000) return;
      const entry: Entry = { script_id: r['.id']!, name };
      if (r.owner) entry.owner = r.owner.slice(0, 200);
      if (r.comment) entry.comment = r.comment.slice(0, 1000);
      if (r.source && r.source.length <= MAX_SOURCE) entry.source = r.source;
      found.push({ n, entry });
    },
    { ...(options.signal ? { signal: options.signal } : {}), proplist: PROPS },
  );
  // Ids grow with creation; sorting makes the cursor safe whatever order the router lists in.
  found.sort((a, b) => a.n - b.n);
  const page = found.slice(0, limit);
  const more = found.length > limit;
  return {
    entries: page.map((f) => f.entry),
    next_cursor: more ? (page[page.length - 1]?.entry.script_id ?? null) : null,
    scanned,
  };
}
