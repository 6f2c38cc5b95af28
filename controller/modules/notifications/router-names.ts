// How a notification names "the router": the NAS module knows the names; this module takes a small
// interface so it never reads another module's tables and works before the NAS module exists.

export interface RouterNames {
  /** The router's display name, or null when unknown (the caller then shows the NAS id). */
  nameOf(clientId: string, nasId: string): Promise<string | null>;
}

/** Without a NAS module: the NAS id is the only name there is. */
export const nasIdRouterNames: RouterNames = {
  nameOf: (_clientId, nasId) => Promise.resolve(nasId),
};

interface NamedRouter {
  id: string;
  shortname: string;
}

/** What the NAS service's topology gives (structural, so this module imports nothing from it). */
export interface TopologySource {
  topology(clientId: string): Promise<{ primary: NamedRouter | null; members: NamedRouter[] }>;
}

/** Names a router by its shortname in the client's topology (its ACTIVE routers), else null. */
export function topologyRouterNames(source: TopologySource): RouterNames {
  return {
    async nameOf(clientId, nasId) {
      const { primary, members } = await source.topology(clientId);
      const router = [primary, ...members].find((r) => r?.id === nasId);
      return router?.shortname ?? null;
    },
  };
}
