// How many RADIUS sessions each NAS has open. The topology asks through this port; the RADIUS
// service (which owns radius_sessions) answers it.

export interface OpenSessionCounter {
  /** Open sessions (no Stop yet) per NAS id of the client; NAS without any are absent. */
  openSessionsByNas(clientId: string, nasIds: readonly string[]): Promise<Map<string, number>>;
}
