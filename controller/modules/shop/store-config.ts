// The store configuration of a tenant (GET, PUT, PATCH /clients/store-config): PUT replaces every
// field, PATCH keeps what it does not name (JSON Merge Patch on the nested objects). The merchant
// key in `store_settings.portal_editor` is sealed at rest and only changed by naming it; answers
// carry `merchant_key_set` instead.
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import type { SecretBox } from '../../core/secret-box.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { mergePatch, type Json } from './merge-patch.js';
import * as q from './queries.js';
import type { StoreConfigBody } from './schemas.js';
import type { ShopStoresTable } from './tables.js';

type JsonObject = { [key: string]: Json };

// The tenant is bound: a sealed key copied to another tenant's row does not open.
const merchantKeyContext = (clientId: string) => `shop merchant key|${clientId}`;

export interface StoreConfigView {
  display_name: string | null;
  logo_url: string | null;
  store_slug: string | null;
  branding: JsonObject;
  plans: Json[];
  store_settings: JsonObject;
  updated_at: string | null;
}

interface Stored {
  branding: JsonObject;
  plans: Json[];
  store_settings: JsonObject;
}

const EMPTY: Stored = { branding: {}, plans: [], store_settings: {} };
// A whole configuration fits in this many characters of JSON.
const MAX_CONFIG_CHARS = 65_536;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const slugTaken = () =>
  new AppError('STORE_SLUG_TAKEN', 'Another store already uses this address', {
    details: [{ field: 'store_slug', message: 'already taken' }],
  });

/** The merchant key named by a body: a string sets it, null removes it, undefined keeps it. */
function namedKey(settings: StoreConfigBody['store_settings']): string | null | undefined {
  const editor = settings?.portal_editor;
  return isObject(editor) && 'merchant_key' in editor ? (editor.merchant_key as string | null) : undefined;
}

/** The settings as stored: no merchant key, no `merchant_key_set` echoed back by a client. */
function withoutKey(settings: Json): Json {
  if (!isObject(settings) || !isObject(settings.portal_editor)) return settings;
  const { merchant_key: _k, merchant_key_set: _s, ...editor } = settings.portal_editor;
  return { ...settings, portal_editor: editor };
}

export class StoreConfigs {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly secrets: SecretBox,
  ) {}

  async get(clientId: string): Promise<StoreConfigView> {
    return view(await q.findStore(this.db, clientId));
  }

  /** The sealed key opened, for the payment path only; null when none is set. */
  async merchantKey(clientId: string): Promise<string | null> {
    const row = await q.findStore(this.db, clientId);
    return row?.merchant_key_sealed
      ? this.secrets.open(row.merchant_key_sealed, merchantKeyContext(clientId))
      : null;
  }

  async save(clientId: string, body: StoreConfigBody, mode: 'replace' | 'merge'): Promise<StoreConfigView> {
    const now = iso(this.clock.now());
    try {
      return await this.db.transaction().execute(async (trx) => {
        const current = await q.findStore(trx, clientId);
        const stored: Stored = current ? { ...EMPTY, ...(JSON.parse(current.config_json) as Stored) } : EMPTY;
        const pick = <K extends 'display_name' | 'logo_url' | 'store_slug'>(k: K) =>
          body[k] !== undefined ? (body[k] ?? null) : mode === 'merge' ? (current?.[k] ?? null) : null;
        const nested = <K extends keyof Stored>(k: K, fallback: Stored[K]): Stored[K] => {
          const given = body[k] as Json | undefined;
          if (given === undefined) return mode === 'merge' ? stored[k] : fallback;
          if (given === null) return fallback;
          if (mode === 'merge' && k !== 'plans') return mergePatch(stored[k], withoutKey(given)) as Stored[K];
          return withoutKey(given) as Stored[K];
        };
        const next: Stored = {
          branding: nested('branding', {}),
          plans: nested('plans', []),
          store_settings: withoutKey(nested('store_settings', {})) as JsonObject,
        };
        const slug = pick('store_slug');
        if (slug !== null) {
          const owner = await q.slugOwner(trx, slug);
          if (owner !== undefined && owner !== clientId) throw slugTaken();
        }
        const key = namedKey(body.store_settings);
        const configJson = JSON.stringify(next);
        if (configJson.length > MAX_CONFIG_CHARS) {
          throw new AppError('VALIDATION_ERROR', `The configuration exceeds ${MAX_CONFIG_CHARS} characters`);
        }
        const row: ShopStoresTable = {
          client_id: clientId,
          display_name: pick('display_name'),
          logo_url: pick('logo_url'),
          store_slug: slug,
          config_json: configJson,
          merchant_key_sealed:
            key === undefined
              ? (current?.merchant_key_sealed ?? null)
              : key === null
                ? null
                : this.secrets.seal(key, merchantKeyContext(clientId)),
          created_at: current?.created_at ?? now,
          updated_at: now,
        };
        await q.saveStore(trx, row);
        return view(row);
      });
    } catch (err) {
      // Two tenants claiming one slug at once: the unique index decides.
      if (isUniqueViolation(err)) throw slugTaken();
      throw err;
    }
  }
}

function view(row: ShopStoresTable | undefined): StoreConfigView {
  const stored: Stored = row ? { ...EMPTY, ...(JSON.parse(row.config_json) as Stored) } : EMPTY;
  const editor = isObject(stored.store_settings.portal_editor) ? stored.store_settings.portal_editor : {};
  return {
    display_name: row?.display_name ?? null,
    logo_url: row?.logo_url ?? null,
    store_slug: row?.store_slug ?? null,
    branding: stored.branding,
    plans: stored.plans,
    store_settings: {
      ...stored.store_settings,
      portal_editor: { ...editor, merchant_key_set: Boolean(row?.merchant_key_sealed) },
    },
    updated_at: row?.updated_at ?? null,
  };
}
