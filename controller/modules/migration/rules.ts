// The pure rules of a migration: who may migrate (inventory motifs), when local accounts may be
// removed (the three proofs), and how a removal batch is judged from counts (never from replies).
import { BUILT_IN_HOTSPOT_USER } from '../../../protocol/index.js';

/** More local accounts than this: no automatic switch. */
export const MAX_LOCAL_ACCOUNTS = 15_000;
/** Less free flash than this, in Mo: no migration (the backup must fit). */
export const MIN_FREE_FLASH_MO = 25;
/** RouterOS shows storage in MiB; `espace_flash_mo` follows it. */
const MO = 1_048_576;
/** The built-in trial user: never removed, never imported (the catalogue's own constant). */
export const SPARED_USER = BUILT_IN_HOTSPOT_USER;

export type Motif =
  | 'LICENCE_RADIUS_INACTIVE'
  | 'ROUTEUR_INJOIGNABLE'
  | 'INVENTAIRE_ILLISIBLE'
  | 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE'
  | 'ESPACE_FLASH_INSUFFISANTE';

export interface InventoryFacts {
  licenceActive: boolean;
  /** The agent link is up and the router answered through it. */
  reachable: boolean;
  /** Local accounts read on the router; null when they could not be read. */
  comptes: number | null;
  flashMo: number;
}

/** The first motif that forbids the migration, in this order; null when it may go. */
export function refusalMotif(f: InventoryFacts): Motif | null {
  if (!f.licenceActive) return 'LICENCE_RADIUS_INACTIVE';
  if (!f.reachable) return 'ROUTEUR_INJOIGNABLE';
  if (f.comptes === null) return 'INVENTAIRE_ILLISIBLE';
  if (f.comptes > MAX_LOCAL_ACCOUNTS) return 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE';
  if (f.flashMo < MIN_FREE_FLASH_MO) return 'ESPACE_FLASH_INSUFFISANTE';
  return null;
}

export function motifTexte(motif: Motif | null, f: InventoryFacts): string | null {
  switch (motif) {
    case null:
      return null;
    case 'LICENCE_RADIUS_INACTIVE':
      return "La licence RADIUS du client n'est pas active : la migration est impossible.";
    case 'ROUTEUR_INJOIGNABLE':
      return 'Le routeur ne répond pas par son agent : impossible de lire ses comptes.';
    case 'INVENTAIRE_ILLISIBLE':
      return "Les comptes locaux du routeur n'ont pas pu être lus : la migration est refusée plutôt que de supposer zéro compte.";
    case 'TROP_DE_COMPTES_POUR_UNE_BASCULE_AUTOMATIQUE':
      return `Le routeur porte ${f.comptes} comptes locaux, plus que les ${MAX_LOCAL_ACCOUNTS} d'une bascule automatique.`;
    case 'ESPACE_FLASH_INSUFFISANTE':
      return `Il reste ${f.flashMo} Mo de flash sur le routeur, moins que les ${MIN_FREE_FLASH_MO} Mo nécessaires à la sauvegarde.`;
  }
}

/** Free flash in whole Mo (rounded down: 24.9 Mo is under 25). */
export const flashMo = (bytes: number | null | undefined): number =>
  bytes === null || bytes === undefined ? 0 : Math.floor(bytes / MO);

export type Proof = 'SAUVEGARDE_CONFIRMEE' | 'IMPORT_RADIUS_CONFIRME' | 'ROUTEUR_JOIGNABLE';

export type RemovalDecision =
  { allowed: true } | { allowed: false; raison: 'RETRAIT_NON_DEMANDE' | `PREUVE_MANQUANTE_${Proof}` };

/** Step 5 runs only when asked and with every proof; the first missing one is the reason. */
export function removalDecision(retirerLocal: boolean, proofs: ReadonlySet<Proof>): RemovalDecision {
  if (!retirerLocal) return { allowed: false, raison: 'RETRAIT_NON_DEMANDE' };
  for (const proof of ['SAUVEGARDE_CONFIRMEE', 'IMPORT_RADIUS_CONFIRME', 'ROUTEUR_JOIGNABLE'] as const) {
    if (!proofs.has(proof)) return { allowed: false, raison: `PREUVE_MANQUANTE_${proof}` };
  }
  return { allowed: true };
}

/** What one removal batch's counts say. */
export type BatchVerdict =
  /** The count before the batch could not be taken: nothing was removed by it. */
  | { kind: 'COUNT_FAILED' }
  /** Removals were sent but the count after could not be taken. */
  | { kind: 'UNVERIFIED' }
  /** The count went down by `removed` (every requested account when `removed === requested`). */
  | { kind: 'COUNTED'; removed: number };

export function judgeBatch(out: {
  count_before: number | null;
  count_after: number | null;
  requested: number;
}): BatchVerdict {
  if (out.count_before === null) return { kind: 'COUNT_FAILED' };
  if (out.count_after === null)
    return out.requested === 0 ? { kind: 'COUNTED', removed: 0 } : { kind: 'UNVERIFIED' };
  // A count that went up (a user added meanwhile) removed nothing we can prove.
  return {
    kind: 'COUNTED',
    removed: Math.max(0, Math.min(out.requested, out.count_before - out.count_after)),
  };
}
