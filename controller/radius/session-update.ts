// What one Accounting-Request says about a session, and how two reports of the same session
// combine. Counters are absolute per session (RFC 2866), so the larger report wins and a
// duplicate or a late, older report changes nothing.
import { joinGigawords } from './gigawords.js';
import type { NasEntry } from './nas-directory.js';
import type { RadiusSessionsTable } from './tables.js';

export type AcctStatus = 'Start' | 'Interim-Update' | 'Stop';

export interface SessionUpdate {
  clientId: string;
  nasId: string;
  acctSessionId: string;
  username: string;
  status: AcctStatus;
  inputOctets: number;
  inputGigawords: number;
  outputOctets: number;
  outputGigawords: number;
  totalBytes: number;
  sessionTime: number;
  terminateCause: string | null;
  framedIp: string | null;
  callingStationId: string | null;
  /** Server time of the report. */
  at: string;
  /** Best estimate of the session start: the report time less the session time. */
  startedAt: string;
}

/** Accounting-On / Accounting-Off: the NAS (re)started, so none of its sessions is still open. */
export interface NasReset {
  clientId: string;
  nasId: string;
  at: string;
}

export type AccountingReport =
  | { kind: 'session'; update: SessionUpdate }
  | { kind: 'nas-reset'; reset: NasReset }
  | { kind: 'ignored'; why: string };

type Attributes = Record<string, unknown>;

const int = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
const text = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : Array.isArray(v) ? text(v[0]) : null;

/** Reads the codec's decoded attributes of an Accounting-Request. */
export function readAccounting(attrs: Attributes, nas: NasEntry, now: Date): AccountingReport {
  const statusType = text(attrs['Acct-Status-Type']) ?? String(attrs['Acct-Status-Type'] ?? '');
  const at = now.toISOString();
  if (statusType === 'Accounting-On' || statusType === 'Accounting-Off') {
    return { kind: 'nas-reset', reset: { clientId: nas.clientId, nasId: nas.nasId, at } };
  }
  if (statusType !== 'Start' && statusType !== 'Interim-Update' && statusType !== 'Stop') {
    return { kind: 'ignored', why: `Acct-Status-Type ${statusType || 'missing'}` };
  }
  const acctSessionId = text(attrs['Acct-Session-Id']);
  const username = text(attrs['User-Name']);
  if (!acctSessionId || !username) return { kind: 'ignored', why: 'no Acct-Session-Id or User-Name' };
  const inputOctets = int(attrs['Acct-Input-Octets']);
  const inputGigawords = int(attrs['Acct-Input-Gigawords']);
  const outputOctets = int(attrs['Acct-Output-Octets']);
  const outputGigawords = int(attrs['Acct-Output-Gigawords']);
  const sessionTime = int(attrs['Acct-Session-Time']);
  const cause = attrs['Acct-Terminate-Cause'];
  return {
    kind: 'session',
    update: {
      clientId: nas.clientId,
      nasId: nas.nasId,
      acctSessionId,
      username,
      status: statusType,
      inputOctets,
      inputGigawords,
      outputOctets,
      outputGigawords,
      totalBytes: joinGigawords(inputOctets, inputGigawords) + joinGigawords(outputOctets, outputGigawords),
      sessionTime,
      terminateCause:
        statusType === 'Stop' ? (text(cause) ?? (typeof cause === 'number' ? String(cause) : null)) : null,
      framedIp: text(attrs['Framed-IP-Address']),
      callingStationId: text(attrs['Calling-Station-Id']),
      at,
      startedAt: new Date(now.getTime() - sessionTime * 1000).toISOString(),
    },
  };
}

export const sessionKey = (u: Pick<SessionUpdate, 'nasId' | 'acctSessionId'>): string =>
  `${u.nasId}\n${u.acctSessionId}`;

/** Two reports of one session, in arrival order, as one: what a single upsert must write. */
export function mergeUpdates(a: SessionUpdate, b: SessionUpdate): SessionUpdate {
  const counters = b.totalBytes >= a.totalBytes ? b : a;
  const stop = b.status === 'Stop' ? b : a.status === 'Stop' ? a : null;
  return {
    ...b,
    status: stop ? 'Stop' : b.status,
    inputOctets: counters.inputOctets,
    inputGigawords: counters.inputGigawords,
    outputOctets: counters.outputOctets,
    outputGigawords: counters.outputGigawords,
    totalBytes: counters.totalBytes,
    sessionTime: Math.max(a.sessionTime, b.sessionTime),
    terminateCause: stop?.terminateCause ?? null,
    framedIp: b.framedIp ?? a.framedIp,
    callingStationId: b.callingStationId ?? a.callingStationId,
    at: stop ? stop.at : b.at,
    startedAt: a.startedAt < b.startedAt ? a.startedAt : b.startedAt,
  };
}

/** The row an update inserts (when the session is new); on conflict the upsert merges with the stored one. */
export function sessionRow(u: SessionUpdate, id: string): RadiusSessionsTable {
  return {
    id,
    client_id: u.clientId,
    nas_id: u.nasId,
    ticket_code: u.username,
    acct_session_id: u.acctSessionId,
    started_at: u.startedAt,
    updated_at: u.at,
    stopped_at: u.status === 'Stop' ? u.at : null,
    input_octets: u.inputOctets,
    input_gigawords: u.inputGigawords,
    output_octets: u.outputOctets,
    output_gigawords: u.outputGigawords,
    total_bytes: u.totalBytes,
    session_time: u.sessionTime,
    terminate_cause: u.terminateCause,
    framed_ip: u.framedIp,
    calling_station_id: u.callingStationId,
  };
}
