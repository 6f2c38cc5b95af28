// Step 1, the migration inventory: read only, through the agent. Local accounts are counted by the
// agent from a plain print (not `count-only`, which would count the built-in user too), and only
// the number crosses the link; an agent that predates that command lists the names instead. The
// count is null when they could not be read, never a guessed zero.
import type { AgentOutcome, AgentTarget } from '../../hub/index.js';
import type { AllocationView } from '../allocations/index.js';
import type { MigrationDeps } from './deps.js';
import { callRouter, outcomeReason, unknownToAgent } from './router-calls.js';
import {
  flashMo,
  MAX_LOCAL_ACCOUNTS,
  MIN_FREE_FLASH_MO,
  motifTexte,
  refusalMotif,
  type Motif,
} from './rules.js';

/** The migration inventory, field for field as `docs/api/migration.md` lists it. */
export interface InventoryView {
  allocation_id: string;
  nas_id: string | null;
  routeur: string | null;
  licence_active: boolean;
  tunnel_joignable: boolean;
  comptes_locaux: number | null;
  espace_flash_mo: number;
  autorise: boolean;
  motif: Motif | null;
  motif_texte: string | null;
  avertissements: string[];
}

export interface InventoryRead {
  view: InventoryView;
}

// Above this many accounts the run is long enough on a slow link to warn about it.
const MANY_ACCOUNTS = 10_000;
// Close to the floor: a second backup may not fit.
const LOW_FLASH_MO = 2 * MIN_FREE_FLASH_MO;

export async function readInventory(
  deps: MigrationDeps,
  clientId: string,
  allocation: AllocationView,
): Promise<InventoryRead> {
  const target = { clientId, allocationId: allocation.id };
  const warnings: string[] = [];
  const licence = await deps.licences.status(clientId, 'RADIUS');
  const nasId = await deps.nas.nasIdForAllocation(clientId, allocation.id);

  // The agent's link answered (tunnel) and, through it, the router answered (reachable).
  let tunnel = false;
  let reachable = false;
  let comptes: number | null = null;
  let freeBytes = allocation.router.free_hdd_bytes;
  let serial = allocation.router.serial;
  if (allocation.link_state !== 'CONNECTED') {
    warnings.push(`Le lien de l'agent est coupé (dernier contact : ${allocation.last_seen_at ?? 'jamais'}).`);
  } else {
    const facts = await callRouter(deps, target, 'router.facts', {});
    tunnel = facts.kind !== 'timeout';
    if (facts.kind === 'done') {
      reachable = true;
      freeBytes = facts.output.free_hdd_bytes;
      serial = facts.output.serial;
      const read = await countLocalAccounts(deps, target);
      if (read.kind === 'done') comptes = read.output.count;
      else warnings.push(`Lecture des comptes locaux impossible : ${outcomeReason(read)}.`);
    } else {
      warnings.push(`Le routeur ne répond pas à son agent : ${outcomeReason(facts)}.`);
    }
  }
  if (!reachable && freeBytes !== null) {
    warnings.push("L'espace flash indiqué est celui du dernier rapport de l'agent.");
  }

  const flash = flashMo(freeBytes);
  const facts = { licenceActive: licence.active, reachable, comptes, flashMo: flash };
  const motif = refusalMotif(facts);
  if (comptes !== null && comptes > MANY_ACCOUNTS && comptes <= MAX_LOCAL_ACCOUNTS) {
    warnings.push(`${comptes} comptes locaux : la migration peut durer plusieurs minutes sur un lien lent.`);
  }
  if (comptes === 0) warnings.push('Aucun compte local sur le routeur : rien à importer.');
  if (reachable && flash >= MIN_FREE_FLASH_MO && flash < LOW_FLASH_MO) {
    warnings.push(`Peu d'espace flash (${flash} Mo) : la sauvegarde peut échouer.`);
  }
  if (nasId === null) warnings.push("Le routeur n'est pas encore un NAS RADIUS : la migration l'enrôlera.");

  return {
    view: {
      allocation_id: allocation.id,
      nas_id: nasId,
      routeur: serial,
      licence_active: licence.active,
      tunnel_joignable: tunnel,
      comptes_locaux: comptes,
      espace_flash_mo: flash,
      autorise: motif === null,
      motif,
      motif_texte: motifTexte(motif, facts),
      avertissements: warnings,
    },
  };
}

/** The local accounts (built-in ones left out), counted on the agent; listed by an older agent. */
async function countLocalAccounts(
  deps: MigrationDeps,
  target: AgentTarget,
): Promise<AgentOutcome<{ count: number }>> {
  const tallied = await callRouter(deps, target, 'hotspot.users.tally', {});
  if (!unknownToAgent(tallied)) return tallied;
  const listed = await callRouter(deps, target, 'hotspot.users.names', {});
  return listed.kind === 'done' ? { kind: 'done', output: { count: listed.output.count } } : listed;
}
