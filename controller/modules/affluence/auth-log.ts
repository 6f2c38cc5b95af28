// What this module reads of the RADIUS authentication log. The RADIUS server owns the log and
// computes these aggregates; this module takes a small interface so it never queries its table.

export interface DayScope {
  clientId: string;
  /** The day as an ISO text range [from, to). */
  from: string;
  to: string;
  nasId: string | null;
}

export interface AuthLog {
  /** Attempts per UTC hour (0-23) and result. */
  hourly(scope: DayScope): Promise<{ hour: number; result: string; n: number }[]>;
  /** Distinct devices with an accepted authentication. */
  distinctClients(scope: DayScope): Promise<number>;
  /** Every attempt of the devices with at least `min` attempts that day, in time order. */
  candidateAttempts(
    scope: DayScope,
    min: number,
  ): Promise<
    { device: string; calling_station_id: string | null; username: string; result: string; at: string }[]
  >;
  /** Whether the client (or one of its NAS) ever logged an authentication. */
  everLogged(clientId: string, nasId: string | null): Promise<boolean>;
  /** Clients with at least one authentication (accepted or refused) in [from, to). */
  activeClients(from: string, to: string): Promise<string[]>;
}
