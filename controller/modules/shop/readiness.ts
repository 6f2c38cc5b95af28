// Whether the shop can sell and deliver: seven checks in dependency order, the first failing one
// named as the state (the deepest cause), and where a ticket would come from. Pure: the service
// gathers the facts. Rules: docs/api/shop.md.

export const READINESS_CODES = [
  'NO_LICENSE',
  'NO_STORE_PROFILE',
  'NO_SLUG',
  'NO_OFFERS',
  'ROUTER_NOT_LINKED',
  'NO_STOCK',
  'DELIVERY_IMPOSSIBLE',
] as const;

export type ReadinessCode = (typeof READINESS_CODES)[number];
export type ReadinessState = 'READY' | ReadinessCode;
export type DeliverySource = 'STOCK' | 'RADIUS' | 'DIRECT' | 'NONE';

/** What readiness is judged on. */
export interface ReadinessFacts {
  licence: { active: boolean; plan_code: string | null; expires_at: string | null };
  store: { has_profile: boolean; store_slug: string | null };
  offers_count: number;
  /** Unsold stock of the catalogue's active offers. */
  vouchers_available: number;
  /** Unsold stock of every profile, hidden ones included. */
  stock_total: number;
  /** A RADIUS licence and an active RADIUS router: a ticket can be made on the fly in the ticket store. */
  radius_refill_available: boolean;
  router: {
    allocation_id: string;
    serial: string | null;
    tunnel_status: 'CONNECTED' | 'DISCONNECTED';
    tunnel_last_seen_at: string | null;
  } | null;
}

export interface ReadinessCheck {
  code: ReadinessCode;
  ok: boolean;
  detail: string | null;
  action: string | null;
}

export interface Readiness {
  can_sell: boolean;
  state: ReadinessState;
  blocking_reason: string | null;
  delivery: { possible: boolean; source: DeliverySource; reason: string };
  checks: ReadinessCheck[];
  store_slug: string | null;
  plan_code: string | null;
  expires_at: string | null;
  offers_count: number;
  vouchers_available: number;
  access_mode: string | null;
  radius_refill_available: boolean;
  router: ReadinessFacts['router'];
}

const TEXTS: Record<ReadinessCode, { detail: string; action: string }> = {
  NO_LICENSE: {
    detail: 'Aucune licence active : la boutique ne peut pas vendre.',
    action: 'Activez ou renouvelez votre licence.',
  },
  NO_STORE_PROFILE: {
    detail: "La boutique n'a pas encore de profil (nom affiché).",
    action: 'Renseignez le nom de votre boutique dans sa configuration.',
  },
  NO_SLUG: {
    detail: "La boutique n'a pas d'adresse publique.",
    action: "Choisissez l'adresse (slug) de votre boutique.",
  },
  NO_OFFERS: {
    detail: 'Aucune offre active avec un prix dans le catalogue.',
    action: 'Activez au moins un profil et donnez-lui un prix.',
  },
  ROUTER_NOT_LINKED: {
    detail: "Aucun routeur n'est relié à votre compte par son agent.",
    action: "Installez l'agent sur votre routeur et enrôlez-le.",
  },
  NO_STOCK: {
    detail: 'Aucun ticket en stock et aucun moyen de créer un ticket à la demande.',
    action: 'Reconnectez votre routeur ou activez RADIUS pour livrer les tickets.',
  },
  DELIVERY_IMPOSSIBLE: {
    detail: 'Le stock ne concerne que des profils masqués : aucun ticket ne peut être livré.',
    action: 'Réactivez ces profils ou reconnectez votre routeur.',
  },
};

const DELIVERY_REASONS: Record<DeliverySource, string> = {
  STOCK: 'Un ticket est pris dans le stock de la boutique.',
  RADIUS: 'Le ticket est créé à la demande sur le serveur RADIUS.',
  DIRECT: 'Le ticket est créé à la demande sur le routeur, par son agent.',
  NONE: "Aucun ticket ne peut être livré : n'encaissez aucun paiement.",
};

/** Where a sold ticket would come from: stock first, then RADIUS, then the router, else nowhere. */
export function deliverySource(f: ReadinessFacts): DeliverySource {
  if (f.vouchers_available > 0) return 'STOCK';
  if (f.radius_refill_available) return 'RADIUS';
  if (f.router?.tunnel_status === 'CONNECTED') return 'DIRECT';
  return 'NONE';
}

export function judgeReadiness(f: ReadinessFacts): Readiness {
  const source = deliverySource(f);
  // With no source at all, the cause is named: no stock anywhere, or stock held only for hidden
  // profiles. Zero stock with another source is not a blocker.
  const outcome: Record<ReadinessCode, boolean> = {
    NO_LICENSE: f.licence.active,
    NO_STORE_PROFILE: f.store.has_profile,
    NO_SLUG: f.store.store_slug !== null,
    NO_OFFERS: f.offers_count > 0,
    ROUTER_NOT_LINKED: f.router !== null,
    NO_STOCK: source !== 'NONE' || f.stock_total > 0,
    DELIVERY_IMPOSSIBLE: source !== 'NONE' || f.stock_total === 0,
  };
  const checks = READINESS_CODES.map((code): ReadinessCheck => ({
    code,
    ok: outcome[code],
    detail: outcome[code] ? null : TEXTS[code].detail,
    action: outcome[code] ? null : TEXTS[code].action,
  }));
  const failing = checks.find((c) => !c.ok);
  return {
    can_sell: failing === undefined,
    state: failing?.code ?? 'READY',
    blocking_reason: failing?.detail ?? null,
    delivery: { possible: source !== 'NONE', source, reason: DELIVERY_REASONS[source] },
    checks,
    store_slug: f.store.store_slug,
    plan_code: f.licence.plan_code,
    expires_at: f.licence.expires_at,
    offers_count: f.offers_count,
    vouchers_available: f.vouchers_available,
    access_mode: f.router ? 'VPN' : null,
    radius_refill_available: f.radius_refill_available,
    router: f.router,
  };
}
