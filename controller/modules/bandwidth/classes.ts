// The essential traffic classes: address ranges kept as data, each with where it comes from, so a
// reviewer can check them and a later release can refresh them without touching code. Classifying
// by address catches signalling, messages and APIs; video served from shared content networks may
// escape, which is accepted (docs/bandwidth.md). Video-first networks are deliberately absent.

export interface TrafficClass {
  id: string;
  libelle: string;
  /** Where the ranges come from (published by the operator of the network, or well known). */
  source: string;
  ranges: readonly string[];
}

export const TRAFFIC_CLASSES: readonly TrafficClass[] = [
  {
    id: 'dns',
    libelle: 'Résolution de noms (DNS publics)',
    source: 'Public resolvers as their operators publish them (Google, Cloudflare, Quad9, OpenDNS)',
    ranges: [
      '8.8.8.8/32',
      '8.8.4.4/32',
      '1.1.1.1/32',
      '1.0.0.1/32',
      '9.9.9.9/32',
      '149.112.112.112/32',
      '208.67.222.222/32',
      '208.67.220.220/32',
    ],
  },
  {
    id: 'whatsapp',
    libelle: 'WhatsApp et messageries Meta',
    source: 'AS32934 (Meta Platforms) prefixes as announced in public routing tables',
    ranges: [
      '31.13.24.0/21',
      '31.13.64.0/18',
      '57.144.0.0/14',
      '66.220.144.0/20',
      '69.63.176.0/20',
      '69.171.224.0/19',
      '157.240.0.0/16',
      '163.70.128.0/17',
      '173.252.64.0/18',
      '179.60.192.0/22',
      '185.60.216.0/22',
    ],
  },
  {
    id: 'telegram',
    libelle: 'Telegram',
    source: 'https://core.telegram.org/resources/cidr.txt',
    ranges: [
      '91.105.192.0/23',
      '91.108.4.0/22',
      '91.108.8.0/22',
      '91.108.12.0/22',
      '91.108.16.0/22',
      '91.108.20.0/22',
      '91.108.56.0/22',
      '95.161.64.0/20',
      '149.154.160.0/20',
      '185.76.151.0/24',
    ],
  },
  {
    id: 'messagerie_google',
    libelle: 'Gmail, Google Messages et notifications Android',
    source: 'https://www.gstatic.com/ipranges/goog.json (Google-owned ranges, excluding Cloud customers)',
    ranges: [
      '64.233.160.0/19',
      '66.102.0.0/20',
      '74.125.0.0/16',
      '142.250.0.0/15',
      '172.217.0.0/16',
      '216.58.192.0/19',
    ],
  },
];

const BY_ID = new Map(TRAFFIC_CLASSES.map((c) => [c.id, c]));

export const classById = (id: string): TrafficClass | undefined => BY_ID.get(id);

/** `GET /bandwidth/classes`: `plages` is the number of address ranges. */
export function classesView() {
  return {
    classes: TRAFFIC_CLASSES.map((c) => ({
      id: c.id,
      libelle: c.libelle,
      plages: c.ranges.length,
      source: c.source,
    })),
  };
}
