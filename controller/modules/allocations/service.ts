import {
  RADIUS_RELAY_FACT,
  RADIUS_RELAY_REPORT_SCHEMA,
  ROUTER_FACTS_SCHEMA,
  type MessageBody,
} from '../../../protocol/index.js';
import { AppError } from '../../core/app-error.js';
import { iso, type Clock } from '../../core/clock.js';
import { isUuid, newId } from '../../core/ids.js';
import type { Db } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { ENROL_CODE_TTL_MS, generateEnrolCode, hashEnrolCode } from './enrol-code.js';
import { installCommands, type InstallCommands } from './install-commands.js';
import { AllocationOwners } from './owners.js';
import * as q from './queries.js';
import { NO_LINK, type LinkFacts, type LinkState, type LinkStateReader } from './link-state.js';
import type { AllocationsTable } from './tables.js';

export type EnrolmentStatus = 'AWAITING_ENROLMENT' | 'ENROLMENT_EXPIRED' | 'ENROLLED' | 'REVOKED';

/** An allocation as clients see it. */
export interface AllocationView {
  id: string;
  label: string | null;
  created_at: string;
  status: EnrolmentStatus;
  /** Until when the enrolment code works; null once the agent has enrolled. */
  enrolment_expires_at: string | null;
  enrolled_at: string | null;
  agent_version: string | null;
  link_state: LinkState;
  last_seen_at: string | null;
  /** What the agent last reported about its router; every field null until it has. */
  router: {
    serial: string | null;
    identity: string | null;
    model: string | null;
    routeros_version: string | null;
    architecture: string | null;
    board_name: string | null;
    free_hdd_bytes: number | null;
    total_hdd_bytes: number | null;
    updated_at: string | null;
  };
  /**
   * Where the agent takes the router's RADIUS (its relay), as its latest facts report said; null
   * when it reported none.
   */
  radius_relay: { address: string; auth_port: number | null; acct_port: number | null } | null;
}

export interface Enrolment {
  /** Shown once, in its display form XXXX-XXXX-XXXX. */
  code: string;
  expires_at: string;
  controller_url: string;
  install: InstallCommands;
}

export interface EnrolledAgent {
  allocationId: string;
  clientId: string;
  agentId: string;
}

export interface AgentRecord {
  allocationId: string;
  clientId: string;
  publicKey: string;
  revoked: boolean;
}

export interface AllocationsOptions {
  /** Base URL of this controller as agents reach it (read at each call: the port may be bound late). */
  publicUrl: () => string;
  /**
   * A link whose holder has not refreshed `last_seen_at` for this long reads as DISCONNECTED,
   * so an instance that died holding links does not leave them CONNECTED forever.
   */
  linkStaleMs: number;
}

const FACTS_PARTIAL = ROUTER_FACTS_SCHEMA.partial();

/** A stored agent report, as report listeners hear it. */
export interface HeardReport {
  allocationId: string;
  clientId: string;
  kind: string;
  at: string;
  data: unknown;
}

export type ReportListener = (report: HeardReport) => void;

/**
 * Takes a report in place of the reports table, before it is acknowledged: true when it did (its
 * own store is then the record, and must make a resend harmless); false leaves it to the table.
 * Throwing leaves the report unacknowledged, so the agent sends it again.
 */
export type ReportConsumer = (report: HeardReport) => Promise<boolean>;

export class AllocationsService {
  readonly #owners: AllocationOwners;
  readonly #findForClient: ReturnType<typeof q.findForClientStatement>;
  readonly #reportListeners: ReportListener[] = [];
  readonly #reportConsumers: ReportConsumer[] = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The agents' links, which the hub owns. */
    private readonly links: LinkStateReader,
    private readonly options: AllocationsOptions,
  ) {
    this.#owners = new AllocationOwners(db);
    this.#findForClient = q.findForClientStatement(db);
  }

  /** True when the allocation exists and belongs to the client (the hub asks it for every command). */
  belongsTo(clientId: string, allocationId: string): Promise<boolean> {
    return this.#owners.belongsTo(clientId, allocationId);
  }

  /** A new router slot for the client and its one-time enrolment code (24 h). */
  async create(
    clientId: string,
    input: { label?: string },
  ): Promise<{ allocation: AllocationView; enrolment: Enrolment }> {
    const now = this.clock.now();
    const code = generateEnrolCode();
    const row: AllocationsTable = {
      id: newId(),
      client_id: clientId,
      label: input.label ?? null,
      created_at: iso(now),
      enrol_code_hash: hashEnrolCode(code),
      enrol_code_expires_at: iso(new Date(now.getTime() + ENROL_CODE_TTL_MS)),
      enrol_code_used_at: null,
      agent_id: null,
      agent_public_key: null,
      enrolled_at: null,
      revoked_at: null,
      router_serial: null,
      router_identity: null,
      router_model: null,
      routeros_version: null,
      architecture: null,
      board_name: null,
      free_hdd_bytes: null,
      total_hdd_bytes: null,
      radius_relay_address: null,
      radius_relay_auth_port: null,
      radius_relay_acct_port: null,
      facts_updated_at: null,
    };
    await q.insertAllocation(this.db, row);
    const controllerUrl = this.options.publicUrl();
    return {
      allocation: this.#view(row, NO_LINK, now),
      enrolment: {
        code,
        expires_at: row.enrol_code_expires_at!,
        controller_url: controllerUrl,
        install: installCommands(controllerUrl, code),
      },
    };
  }

  /**
   * The client's slot of a router, found by its serial or made for it, with a fresh enrolment code
   * while its agent has not enrolled (codes are stored hashed, so a code is only ever shown once:
   * asking again replaces it). Another tenant's router with that serial is not seen.
   */
  async slotForRouter(
    clientId: string,
    router: { serial: string; identity?: string | undefined; model?: string | undefined },
  ): Promise<{ allocation: AllocationView; enrolment: Enrolment | null; created: boolean }> {
    const found = await q.findLiveBySerial(this.db, clientId, router.serial);
    if (found) return { ...(await this.enrolmentOf(clientId, found.id)), created: false };
    const made = await this.create(clientId, {});
    await q.setAppFacts(this.db, made.allocation.id, {
      router_serial: router.serial,
      ...(router.identity !== undefined ? { router_identity: router.identity } : {}),
      ...(router.model !== undefined ? { router_model: router.model } : {}),
    });
    return {
      allocation: await this.get(clientId, made.allocation.id),
      enrolment: made.enrolment,
      created: true,
    };
  }

  /** The client's allocation and, until its agent enrols, a fresh enrolment code (404 otherwise). */
  async enrolmentOf(
    clientId: string,
    id: string,
  ): Promise<{ allocation: AllocationView; enrolment: Enrolment | null }> {
    const allocation = await this.get(clientId, id);
    if (allocation.status !== 'AWAITING_ENROLMENT' && allocation.status !== 'ENROLMENT_EXPIRED')
      return { allocation, enrolment: null };
    const code = generateEnrolCode();
    const expiresAt = iso(new Date(this.clock.now().getTime() + ENROL_CODE_TTL_MS));
    await q.replaceEnrolCode(this.db, id, hashEnrolCode(code), expiresAt);
    const controllerUrl = this.options.publicUrl();
    return {
      allocation: await this.get(clientId, id),
      enrolment: {
        code,
        expires_at: expiresAt,
        controller_url: controllerUrl,
        install: installCommands(controllerUrl, code),
      },
    };
  }

  async list(clientId: string): Promise<AllocationView[]> {
    const now = this.clock.now();
    const rows = await q.listForClient(this.db, clientId);
    const links = await this.links.linksOf(rows.map((row) => row.id));
    return rows.map((row) => this.#view(row, links.get(row.id) ?? NO_LINK, now));
  }

  /** The client's allocation; 404 for an unknown id or another tenant's. */
  async get(clientId: string, id: string): Promise<AllocationView> {
    const row = (await this.#findForClient.run(this.db, [clientId, id])).rows[0];
    if (!row) throw new AppError('ALLOCATION_NOT_FOUND', 'No allocation with this id');
    return this.#viewWithLink(row);
  }

  /**
   * Revokes the client's allocation: its agent's key and any unused enrolment code are refused from
   * now on, for good (the hub closes a live link). Idempotent; 404 for an unknown id or another tenant's.
   */
  async revoke(clientId: string, id: string): Promise<AllocationView> {
    await q.revokeAllocation(this.db, clientId, id, iso(this.clock.now()));
    return this.get(clientId, id);
  }

  /** Any tenant's allocation with its owner, for administrator routes; 404 for an unknown id. */
  async getWithOwner(id: string): Promise<{ clientId: string; allocation: AllocationView }> {
    const row = isUuid(id) ? await q.findById(this.db, id) : undefined;
    if (!row) throw new AppError('ALLOCATION_NOT_FOUND', 'No allocation with this id');
    return { clientId: row.client_id, allocation: await this.#viewWithLink(row) };
  }

  /**
   * Enrolment by the hub: uses the code once and registers the agent's key. Facts sent with the
   * enrolment are stored with `factsAt`. Undefined when the code is unknown, used, expired or revoked.
   */
  async enrolAgent(input: {
    code: string;
    agentKey: string;
    facts?: unknown;
    factsAt: string;
  }): Promise<EnrolledAgent | undefined> {
    const agentId = newId();
    const claimed = await q.claimEnrolCode(this.db, hashEnrolCode(input.code), iso(this.clock.now()), {
      agent_id: agentId,
      agent_public_key: input.agentKey,
    });
    if (!claimed) return undefined;
    this.#owners.remember(claimed.id, claimed.client_id);
    if (input.facts) await this.recordFacts(claimed.id, input.facts, input.factsAt);
    return { allocationId: claimed.id, clientId: claimed.client_id, agentId };
  }

  /** The enrolled agent with this id (revoked ones included, so the hub can say so). */
  async findAgent(agentId: string): Promise<AgentRecord | undefined> {
    const row = await q.findByAgentId(this.db, agentId);
    if (!row?.agent_public_key) return undefined;
    // The hub sends this allocation's commands next: its owner is known without another read.
    this.#owners.remember(row.id, row.client_id);
    return {
      allocationId: row.id,
      clientId: row.client_id,
      publicKey: row.agent_public_key,
      revoked: row.revoked_at !== null,
    };
  }

  /**
   * Stores one report of the agent's outbox, once whatever the number of resends; a new facts
   * report also updates the allocation's router facts, in the same transaction.
   * @returns true when this call stored it, false for a resend.
   */
  async recordReport(
    allocationId: string,
    report: MessageBody<'report'>,
    clientId?: string,
  ): Promise<boolean> {
    if (clientId !== undefined && this.#reportConsumers.length > 0) {
      const heard = { allocationId, clientId, kind: report.kind, at: report.at, data: report.data };
      for (const consumer of this.#reportConsumers) if (await consumer(heard)) return true;
    }
    return this.#storeReport(allocationId, report, clientId);
  }

  /**
   * `recordReport` of the reports of one frame (an agent's backlog): each consumer is handed them
   * all at once, in the order given, so it can store them together (the network-quality points of
   * a backlog in one batch); those no consumer takes are then stored one after another, in order.
   * Resolves once every one is recorded; a failure leaves them all unacknowledged (each is stored
   * once whatever the number of resends).
   */
  async recordReports(
    allocationId: string,
    reports: readonly MessageBody<'report'>[],
    clientId?: string,
  ): Promise<void> {
    let left = reports;
    if (clientId !== undefined)
      for (const consumer of this.#reportConsumers) {
        if (left.length === 0) break;
        const taken = await Promise.all(
          left.map((r) => consumer({ allocationId, clientId, kind: r.kind, at: r.at, data: r.data })),
        );
        left = left.filter((_, i) => !taken[i]);
      }
    for (const report of left) await this.#storeReport(allocationId, report, clientId);
  }

  async #storeReport(
    allocationId: string,
    report: MessageBody<'report'>,
    clientId?: string,
  ): Promise<boolean> {
    const receivedAt = iso(this.clock.now());
    const stored = await this.db.transaction().execute(async (trx) => {
      const stored = await q.insertReport(trx, {
        id: report.id,
        allocation_id: allocationId,
        kind: report.kind,
        at: report.at,
        data: JSON.stringify(report.data),
        received_at: receivedAt,
      });
      if (stored && report.kind === 'facts')
        await this.#writeFacts(trx, allocationId, report.data, report.at);
      return stored;
    });
    if (stored && clientId !== undefined) {
      const heard = { allocationId, clientId, kind: report.kind, at: report.at, data: report.data };
      for (const listener of this.#reportListeners) listener(heard);
    }
    return stored;
  }

  /**
   * Hears each report once it is stored (a later module takes what it needs, e.g. the usage store
   * its telemetry readings). A listener must not throw nor make the hub wait.
   */
  addReportListener(listener: ReportListener): void {
    this.#reportListeners.push(listener);
  }

  /** Adds a consumer that may take reports before the reports table does (see ReportConsumer). */
  addReportConsumer(consumer: ReportConsumer): void {
    this.#reportConsumers.push(consumer);
  }

  /** Updates the router facts it is given (all optional), unless newer ones are stored. */
  async recordFacts(allocationId: string, facts: unknown, at: string): Promise<void> {
    await this.#writeFacts(this.db, allocationId, facts, at);
  }

  async #writeFacts(db: Db, allocationId: string, facts: unknown, at: string): Promise<void> {
    const parsed = FACTS_PARTIAL.safeParse(facts);
    if (!parsed.success) {
      // The report itself is kept; only the facts columns stay as they were.
      this.logger.warn({ allocationId, issues: parsed.error.issues.length }, 'facts do not match the schema');
      return;
    }
    const f = parsed.data;
    const columns: q.FactColumns = {
      router_serial: f.serial,
      router_identity: f.identity,
      router_model: f.model,
      routeros_version: f.routeros_version,
      architecture: f.architecture,
      board_name: f.board_name,
      free_hdd_bytes: f.free_hdd_bytes,
      total_hdd_bytes: f.total_hdd_bytes,
    };
    Object.assign(columns, this.#relayColumns(allocationId, facts));
    // Absent facts leave their column alone rather than erasing what an earlier report said.
    for (const key of Object.keys(columns) as (keyof q.FactColumns)[]) {
      if (columns[key] === undefined) delete columns[key];
    }
    await q.updateFacts(db, allocationId, columns, at);
  }

  /** The relay member of a facts report: null clears it (the agent relays nothing); absent leaves it. */
  #relayColumns(allocationId: string, facts: unknown): q.FactColumns {
    if (typeof facts !== 'object' || facts === null || !(RADIUS_RELAY_FACT in facts)) return {};
    const value = (facts as Record<string, unknown>)[RADIUS_RELAY_FACT];
    if (value === null)
      return { radius_relay_address: null, radius_relay_auth_port: null, radius_relay_acct_port: null };
    const parsed = RADIUS_RELAY_REPORT_SCHEMA.safeParse(value);
    if (!parsed.success) {
      this.logger.warn({ allocationId }, 'radius relay of a facts report does not match the schema');
      return {};
    }
    return {
      radius_relay_address: parsed.data.address,
      radius_relay_auth_port: parsed.data.auth_port,
      radius_relay_acct_port: parsed.data.acct_port,
    };
  }

  async #viewWithLink(row: AllocationsTable): Promise<AllocationView> {
    const link = (await this.links.linksOf([row.id])).get(row.id) ?? NO_LINK;
    return this.#view(row, link, this.clock.now());
  }

  #view(row: AllocationsTable, link: LinkFacts, now: Date): AllocationView {
    const stale =
      link.last_seen_at === null || now.getTime() - Date.parse(link.last_seen_at) > this.options.linkStaleMs;
    return {
      id: row.id,
      label: row.label,
      created_at: row.created_at,
      status: enrolmentStatus(row, now),
      enrolment_expires_at: row.enrolled_at ? null : row.enrol_code_expires_at,
      enrolled_at: row.enrolled_at,
      agent_version: link.agent_version,
      link_state: link.link_state === 'CONNECTED' && !stale ? 'CONNECTED' : 'DISCONNECTED',
      last_seen_at: link.last_seen_at,
      router: {
        serial: row.router_serial,
        identity: row.router_identity,
        model: row.router_model,
        routeros_version: row.routeros_version,
        architecture: row.architecture,
        board_name: row.board_name,
        free_hdd_bytes: row.free_hdd_bytes,
        total_hdd_bytes: row.total_hdd_bytes,
        updated_at: row.facts_updated_at,
      },
      radius_relay: row.radius_relay_address
        ? {
            address: row.radius_relay_address,
            auth_port: row.radius_relay_auth_port === null ? null : Number(row.radius_relay_auth_port),
            acct_port: row.radius_relay_acct_port === null ? null : Number(row.radius_relay_acct_port),
          }
        : null,
    };
  }
}

function enrolmentStatus(row: AllocationsTable, now: Date): EnrolmentStatus {
  if (row.revoked_at) return 'REVOKED';
  if (row.enrolled_at) return 'ENROLLED';
  return row.enrol_code_expires_at && Date.parse(row.enrol_code_expires_at) > now.getTime()
    ? 'AWAITING_ENROLMENT'
    : 'ENROLMENT_EXPIRED';
}
