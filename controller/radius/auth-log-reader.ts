// The authentication log as other modules read it (the affluence report): aggregates of one day,
// computed in SQL here, so no other module queries the log's table.
import type { Db } from '../db/database.js';
import * as q from './auth-log-queries.js';

export type { AuthLogScope } from './auth-log-queries.js';

/** Attempts of one result in one UTC hour (0-23). */
export interface HourlyAttempts {
  hour: number;
  result: string;
  n: number;
}

/** One attempt of a device: its MAC when the NAS sent one (`m:…`), else its username (`u:…`). */
export interface DeviceAttempt {
  device: string;
  calling_station_id: string | null;
  username: string;
  result: string;
  at: string;
}

export class AuthLogReader {
  constructor(private readonly db: Db) {}

  /** Attempts per hour and result. */
  hourly(scope: q.AuthLogScope): Promise<HourlyAttempts[]> {
    return q.hourly(this.db, scope);
  }

  /** Distinct devices with an accepted authentication. */
  distinctClients(scope: q.AuthLogScope): Promise<number> {
    return q.distinctClients(this.db, scope);
  }

  /** Every attempt of the devices with at least `min` attempts, in time order. */
  candidateAttempts(scope: q.AuthLogScope, min: number): Promise<DeviceAttempt[]> {
    return q.candidateAttempts(this.db, scope, min);
  }

  /** Whether the client (or one of its NAS) ever logged an authentication. */
  everLogged(clientId: string, nasId: string | null): Promise<boolean> {
    return q.everLogged(this.db, clientId, nasId);
  }

  /** Clients with at least one authentication (accepted or refused) in [from, to). */
  activeClients(from: string, to: string): Promise<string[]> {
    return q.activeClients(this.db, from, to);
  }
}
