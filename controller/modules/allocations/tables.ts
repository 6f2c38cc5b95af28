/** One router slot of a client, its enrolled agent and the router's last facts (the link is the hub's). */
export interface AllocationsTable {
  id: string;
  client_id: string;
  label: string | null;
  created_at: string;
  /** SHA-256 hex of the normalised code; the code itself is shown once and never stored. */
  enrol_code_hash: string | null;
  enrol_code_expires_at: string | null;
  enrol_code_used_at: string | null;
  agent_id: string | null;
  /** Base64 Ed25519 key the agent registered at enrolment; every later hello must be signed by it. */
  agent_public_key: string | null;
  enrolled_at: string | null;
  revoked_at: string | null;
  router_serial: string | null;
  router_identity: string | null;
  router_model: string | null;
  routeros_version: string | null;
  architecture: string | null;
  board_name: string | null;
  free_hdd_bytes: number | null;
  total_hdd_bytes: number | null;
  /** Time of the facts as the agent read them (not when they arrived), so an old resend never wins. */
  facts_updated_at: string | null;
  /** The agent's RADIUS relay as its facts report said: its address as the router sees it. */
  radius_relay_address: string | null;
  radius_relay_auth_port: number | null;
  radius_relay_acct_port: number | null;
}

export type ReportKind = 'facts' | 'telemetry' | 'event';

/** An agent outbox entry, stored once by its id however often it is resent. */
export interface AgentReportsTable {
  id: string;
  allocation_id: string;
  kind: ReportKind;
  at: string;
  data: string;
  received_at: string;
}

export interface AllocationsTables {
  allocations: AllocationsTable;
  agent_reports: AgentReportsTable;
}
