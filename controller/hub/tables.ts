export type CommandState = 'QUEUED' | 'SENT' | 'ACKED' | 'DONE' | 'FAILED' | 'EXPIRED';

/** States after which nothing changes a command any more. */
export const FINAL_COMMAND_STATES: readonly CommandState[] = ['DONE', 'FAILED', 'EXPIRED'];
/** States in which a command still waits for its outcome. */
export const OPEN_COMMAND_STATES: readonly CommandState[] = ['QUEUED', 'SENT', 'ACKED'];

/** One command for an agent: stored before it is sent, final exactly once. */
export interface AgentCommandsTable {
  id: string;
  allocation_id: string;
  client_id: string;
  name: string;
  /** JSON text. */
  params: string;
  state: CommandState;
  deadline: string;
  created_at: string;
  sent_at: string | null;
  acked_at: string | null;
  finished_at: string | null;
  /** How many times the command was put on a link (a resend after a reconnect counts). */
  attempts: number;
  /** JSON text of the agent's output (a backup's content included). */
  output: string | null;
  fault_code: string | null;
  fault_message: string | null;
  fault_retryable: number | null;
}

export type LinkState = 'CONNECTED' | 'DISCONNECTED';

/**
 * An agent's link, one row per allocation that ever had one. Written by the hub instance that holds
 * the socket, so that any instance can answer for it.
 */
export interface AgentLinksTable {
  allocation_id: string;
  link_state: LinkState;
  /** The instance holding the socket (`instanceId`), null while disconnected. */
  link_instance: string | null;
  /** Session id (challenge nonce) of the connection that owns the link; guards stale writes. */
  link_session: string | null;
  last_seen_at: string | null;
  /** The version the agent announced on its latest handshake. */
  agent_version: string | null;
}

export interface HubTables {
  agent_commands: AgentCommandsTable;
  agent_links: AgentLinksTable;
}
