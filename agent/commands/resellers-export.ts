// `resellers.export`: the reseller accounts the local app keeps on the router, parsed, and the
// `vendu par <name>` tag counts of every other hotspot user. Streams the user table once, so a
// router with 15,000 vouchers costs one pass and a few counters, not 15,000 comments on the link.
import type { CommandOutput } from '../../protocol/index.js';
import type { RouterCallOptions, RouterConnection } from '../routeros/router-connection.js';
import { readFacts } from '../routeros/router-tasks.js';
import { parseRouterOsBoolean } from '../routeros/ros-values.js';
import { isResellerComment, parseResellerComment, sellerTag } from './reseller-comment.js';

type ResellersExport = CommandOutput<'resellers.export'>;
type Account = ResellersExport['accounts'][number];

const USER_PROPS = ['name', 'comment', 'disabled'];

export async function exportResellers(
  router: RouterConnection,
  options: RouterCallOptions = {},
): Promise<ResellersExport> {
  const call = options.signal ? { signal: options.signal } : {};
  const accounts: Account[] = [];
  const tags = new Map<string, number>();
  const scanned = await router.printEach(
    '/ip/hotspot/user',
    (r) => {
      const name = r.name?.trim() ? r.name : undefined;
      if (name === undefined) return;
      if (isResellerComment(r.comment)) {
        accounts.push({
          name: name.slice(0, 200),
          disabled: parseRouterOsBoolean(r.disabled) ?? false,
          ...parseResellerComment(r.comment),
        });
        return;
      }
      const tag = sellerTag(r.comment);
      if (tag !== undefined) tags.set(tag, (tags.get(tag) ?? 0) + 1);
    },
    { ...call, proplist: USER_PROPS },
  );
  // The serial ties the export to the router it came from (the opening balance is keyed by it).
  const { serial } = await readFacts(router, call);
  return {
    serial,
    accounts,
    tags: [...tags].map(([name, count]) => ({ name, count })),
    users_scanned: scanned,
  };
}
