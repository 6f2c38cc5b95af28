// The broker's tables: one stream per channel (epoch and top offset), its recent publications,
// and who is subscribed where (presence), so every instance on one database sees the same.

export interface RealtimeChannelsTable {
  name: string;
  /** Names this stream's generation: a client holding another epoch cannot recover from it. */
  epoch: string;
  /** Offset of the latest publication (0: none yet); offsets grow by one per publication. */
  top_offset: number;
  created_at: string;
}

export interface RealtimePublicationsTable {
  channel: string;
  /** The publication's offset in its channel (`offset` is an SQL word). */
  seq: number;
  /** The publication's data, JSON text. */
  data: string;
  created_at: string;
}

export interface RealtimePresenceTable {
  /** The connection's client id and the channel (one row per subscription). */
  client_id: string;
  channel: string;
  /** The account behind the connection. */
  user_id: string;
  /** The instance holding the socket: its rows go when it starts again. */
  instance_id: string;
  /** Renewed while the socket lives; rows of an instance that died are pruned once stale. */
  seen_at: string;
}

export interface RealtimeTables {
  realtime_channels: RealtimeChannelsTable;
  realtime_publications: RealtimePublicationsTable;
  realtime_presence: RealtimePresenceTable;
}
