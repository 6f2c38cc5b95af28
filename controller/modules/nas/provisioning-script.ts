// The RouterOS script that makes a router a RADIUS NAS of this controller. Written for RouterOS 6
// and 7 alike (spaced menu paths) and safe to run again: the previous ticketnet entry is removed
// before the new one is added, and the other settings are plain `set`s.

/** Where the router sends RADIUS and how it behaves towards it. */
export interface RadiusTarget {
  address: string;
  authPort: number;
  acctPort: number;
  /** Accounting interim interval the hotspot profiles get, in seconds. */
  interimSeconds: number;
}

/** Name of the temporary `/system/script` entry when the agent applies the script. */
export const SCRIPT_NAME = 'ticketnet-radius';

// RouterOS waits this long per try (3 tries) before the next server; the relay adds a round trip
// to the controller, so the 300 ms default would give up on a slow uplink.
export const RADIUS_TIMEOUT = '3s';

export const nasComment = (nasId: string): string => `ticketnet:${nasId}`;

export function provisioningScript(nas: { id: string; secret: string }, target: RadiusTarget): string {
  // The secret is hex and the address matched a strict pattern at config load: nothing to escape.
  return [
    `# ticketnet: RADIUS provisioning of NAS ${nas.id}`,
    '# Safe to run again: the previous ticketnet RADIUS entry is replaced.',
    '/radius remove [find comment~"ticketnet:"]',
    `/radius add address=${target.address} secret="${nas.secret}" service=hotspot` +
      ` authentication-port=${target.authPort} accounting-port=${target.acctPort}` +
      ` timeout=${RADIUS_TIMEOUT} comment="${nasComment(nas.id)}"`,
    `/ip hotspot profile set [find] use-radius=yes radius-accounting=yes radius-interim-update=${target.interimSeconds}s`,
    '# Disconnect and CoA from the controller (through the agent).',
    '/radius incoming set accept=yes',
    `:log info "ticketnet: RADIUS provisioning applied (NAS ${nas.id})"`,
    '',
  ].join('\n');
}

/** Name of the temporary `/system/script` entry of a return to local accounts. */
export const CUT_SCRIPT_NAME = 'ticketnet-radius-off';

/**
 * Turns RADIUS off on the hotspot server profiles (return to local accounts): the hotspot goes back
 * to its local users only. The `/radius` entry is left in place. Safe to run again.
 */
export function radiusCutScript(): string {
  return [
    '# ticketnet: hotspot back to local accounts; the /radius entry stays.',
    '/ip hotspot profile set [find] use-radius=no',
    ':log info "ticketnet: RADIUS turned off on the hotspot profiles"',
    '',
  ].join('\n');
}
