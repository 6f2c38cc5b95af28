export interface JobLeasesTable {
  name: string;
  owner: string | null;
  lease_until: string | null;
  next_run_at: string | null;
  last_started_at: string | null;
  last_finished_at: string | null;
  last_status: string | null;
  last_error: string | null;
  runs: number;
}

export interface JobsTables {
  job_leases: JobLeasesTable;
}
