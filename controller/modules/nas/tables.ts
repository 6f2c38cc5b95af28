export type NasRole = 'PRIMARY' | 'MEMBER';

/** PENDING until the router is known to carry the provisioning; DELETED is a soft delete. */
export type NasStatus = 'PENDING' | 'ACTIVE' | 'DELETED';

/** Who injects the provisioning script: the controller through the agent, or the mobile app. */
export type NasApplyMode = 'server' | 'app_apply';

/** One RADIUS router (NAS) of a client, tied to its allocation (router slot). */
export interface NasTable {
  id: string;
  client_id: string;
  allocation_id: string;
  /** What the RADIUS server matches a packet's source against (`agent:<allocation id>` via the relay). */
  nasname: string;
  shortname: string;
  /** RADIUS shared secret; leaves the controller only inside the provisioning script. */
  secret: string;
  role: NasRole;
  status: NasStatus;
  apply_mode: NasApplyMode;
  /** The serial the router reported when it was enrolled. */
  router_serial: string;
  model: string | null;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  verified_at: string | null;
  deleted_at: string | null;
}

/** The enrolment deployment lock of one router; the row exists only while a deployment runs. */
export interface NasDeploymentsTable {
  allocation_id: string;
  client_id: string;
  nas_id: string | null;
  nas_created: number;
  /** Identifies the holder, so a deployment that lost its lock never releases another's. */
  token: string;
  status: 'DEPLOYING';
  started_at: string;
  expires_at: string;
}

export interface NasTables {
  nas: NasTable;
  nas_deployments: NasDeploymentsTable;
}
