// Who made a device, from the first three octets of its MAC, read from the IEEE registry as the
// `oui-data` package ships it (kept current by its maintainers): never a hand-kept table of prefixes.
// The logo is a separate, stable slug from a small brand table, so a registry spelling change never
// changes an icon, and an unknown or absent vendor is always the generic icon.
import { createRequire } from 'node:module';

export type VendorReason = 'MAC_ABSENTE' | 'MAC_ALEATOIRE' | 'CONSTRUCTEUR_INCONNU';

export interface VendorInfo {
  vendor: string | null;
  vendor_logo: string;
  vendor_reason: VendorReason | null;
}

export const GENERIC_LOGO = 'generic';

/** Brands the app has an icon for: the first pattern that matches the registry's name wins. */
const BRANDS: readonly (readonly [RegExp, string])[] = [
  [/ubiquiti/i, 'ubiquiti'],
  [/mikrotik|routerboard/i, 'mikrotik'],
  [/tp-?link/i, 'tp-link'],
  [/cambium/i, 'cambium'],
  [/hikvision/i, 'hikvision'],
  [/dahua/i, 'dahua'],
  [/tenda/i, 'tenda'],
  [/huawei/i, 'huawei'],
  [/zte/i, 'zte'],
  [/cisco/i, 'cisco'],
  [/netgear/i, 'netgear'],
  [/d-link/i, 'd-link'],
  [/ruijie|reyee/i, 'ruijie'],
  [/grandstream/i, 'grandstream'],
  [/axis communications/i, 'axis'],
  [/apple/i, 'apple'],
  [/samsung/i, 'samsung'],
];

/** A lookup from a 6-hex-digit prefix (upper case) to the registry's organisation name. */
export type OuiLookup = (prefix: string) => string | undefined;

let registry: Map<string, string> | undefined;

/**
 * The IEEE registry, loaded on first use (a 5 MB JSON file: a controller that never scans never
 * pays for it), kept as prefix → organisation name (the first line of the registry's entry).
 */
export const ieeeRegistry: OuiLookup = (prefix) => {
  if (!registry) {
    const raw = createRequire(import.meta.url)('oui-data') as Record<string, string>;
    registry = new Map(Object.entries(raw).map(([k, v]) => [k.toUpperCase(), v.split('\n')[0]!.trim()]));
  }
  return registry.get(prefix);
};

const MAC =
  /^([0-9A-F]{2})[:-]?([0-9A-F]{2})[:-]?([0-9A-F]{2})[:-]?[0-9A-F]{2}[:-]?[0-9A-F]{2}[:-]?[0-9A-F]{2}$/i;

/** Icon slug for a vendor name: a brand of the table, else generic (always for null). */
export function vendorLogo(vendor: string | null): string {
  if (!vendor) return GENERIC_LOGO;
  return BRANDS.find(([re]) => re.test(vendor))?.[1] ?? GENERIC_LOGO;
}

/**
 * The vendor of a MAC: none for an absent or unreadable MAC (MAC_ABSENTE), none for a locally
 * administered one (MAC_ALEATOIRE: phones and some devices randomise it, so its prefix names
 * nobody), none for a prefix the registry does not hold (CONSTRUCTEUR_INCONNU).
 */
export function vendorOf(mac: string | null | undefined, lookup: OuiLookup = ieeeRegistry): VendorInfo {
  const m = mac ? MAC.exec(mac.trim()) : null;
  if (!m) return { vendor: null, vendor_logo: GENERIC_LOGO, vendor_reason: 'MAC_ABSENTE' };
  const first = parseInt(m[1]!, 16);
  // bit 1 of the first octet: locally administered (IEEE 802), not an assigned prefix
  if ((first & 0x02) !== 0)
    return { vendor: null, vendor_logo: GENERIC_LOGO, vendor_reason: 'MAC_ALEATOIRE' };
  const vendor = lookup(`${m[1]}${m[2]}${m[3]}`.toUpperCase()) ?? null;
  if (!vendor) return { vendor: null, vendor_logo: GENERIC_LOGO, vendor_reason: 'CONSTRUCTEUR_INCONNU' };
  return { vendor, vendor_logo: vendorLogo(vendor), vendor_reason: null };
}
