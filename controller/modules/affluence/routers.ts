// Which routers a client has, for `disponible` and the `nas_id` filter. The NAS module knows; this
// module takes a small interface so it never reads another module's tables.

export interface RadiusRouters {
  /** Ids of the client's live RADIUS routers. */
  routerIds(clientId: string): Promise<string[]>;
}

/** Without a NAS module: no router is known; the authentication log alone decides. */
export const noRadiusRouters: RadiusRouters = { routerIds: () => Promise.resolve([]) };

/** What the NAS service's topology gives (structural, so this module imports nothing from it). */
export interface TopologySource {
  topology(clientId: string): Promise<{ primary: { id: string } | null; members: { id: string }[] }>;
}

export function topologyRadiusRouters(source: TopologySource): RadiusRouters {
  return {
    async routerIds(clientId) {
      const { primary, members } = await source.topology(clientId);
      return [...(primary ? [primary.id] : []), ...members.map((m) => m.id)];
    },
  };
}
