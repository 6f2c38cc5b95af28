// Hardware the simulator pretends to be, one typical board per architecture
// found in hotspot deployments.

export type Architecture = 'arm' | 'arm64' | 'x86' | 'mipsbe' | 'tile';

export interface BoardProfile {
  architecture: Architecture;
  /** Model code without the "RB" prefix v7 adds (see version-caps). */
  model: string;
  boardName: string;
  cpu: string;
  cpuCount: number;
  cpuFrequency: number;
  totalMemory: number;
  totalHdd: number;
  /** Free flash on a freshly configured unit. */
  freeHdd: number;
  firmware: string;
  /** CHR/x86 has no RouterBOARD: no routerboard serial, a license system-id instead. */
  routerboard: boolean;
  /** OUI used for the ethernet MAC addresses. */
  macPrefix: string;
  ethernetPorts: number;
}

const MiB = 1024 * 1024;

export const BOARD_PROFILES: Record<Architecture, BoardProfile> = {
  mipsbe: {
    architecture: 'mipsbe',
    model: '952Ui-5ac2nD',
    boardName: 'hAP ac lite',
    cpu: 'MIPS 24Kc V7.4',
    cpuCount: 1,
    cpuFrequency: 650,
    totalMemory: 64 * MiB,
    totalHdd: 16 * MiB,
    freeHdd: 3_907_584,
    firmware: '6.45.9',
    routerboard: true,
    macPrefix: 'C4:AD:34',
    ethernetPorts: 5,
  },
  arm: {
    architecture: 'arm',
    model: 'D52G-5HacD2HnD',
    boardName: 'hAP ac^2',
    cpu: 'ARMv7',
    cpuCount: 4,
    cpuFrequency: 716,
    totalMemory: 128 * MiB,
    totalHdd: 16 * MiB,
    freeHdd: 4_349_952,
    firmware: '7.12.1',
    routerboard: true,
    macPrefix: 'DC:2C:6E',
    ethernetPorts: 5,
  },
  arm64: {
    architecture: 'arm64',
    model: 'C52iG-5HaxD2HaxD',
    boardName: 'hAP ax^2',
    cpu: 'ARM64',
    cpuCount: 4,
    cpuFrequency: 864,
    totalMemory: 1024 * MiB,
    totalHdd: 128 * MiB,
    freeHdd: 97_255_424,
    firmware: '7.16.2',
    routerboard: true,
    macPrefix: '48:A9:8A',
    ethernetPorts: 5,
  },
  x86: {
    architecture: 'x86',
    model: '',
    boardName: 'CHR',
    cpu: 'Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz',
    cpuCount: 2,
    cpuFrequency: 2400,
    totalMemory: 1024 * MiB,
    totalHdd: 128 * MiB,
    freeHdd: 101_429_248,
    firmware: '',
    routerboard: false,
    macPrefix: '52:54:00',
    ethernetPorts: 2,
  },
  tile: {
    architecture: 'tile',
    model: 'CCR1036-12G-4S',
    boardName: 'CCR1036-12G-4S',
    cpu: 'tilegx',
    cpuCount: 36,
    cpuFrequency: 1200,
    totalMemory: 4096 * MiB,
    totalHdd: 1024 * MiB,
    freeHdd: 985_661_440,
    firmware: '6.48.6',
    routerboard: true,
    macPrefix: '4C:5E:0C',
    ethernetPorts: 12,
  },
};

export function isArchitecture(value: string): value is Architecture {
  return Object.hasOwn(BOARD_PROFILES, value);
}
