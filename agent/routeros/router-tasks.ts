// The high-level router operations the agent's command catalogue calls. Each
// takes a RouterConnection; router failures are RouterError (a fault code),
// an aborted call rejects with its signal's reason.
export { readFacts, readCapabilities } from './read-facts.js';
export type { RouterFacts } from './read-facts.js';
export { ping } from './ping-router.js';
export { exportHotspotUsers, listHotspotProfiles } from './export-hotspot-users.js';
export type { HotspotExport, HotspotProfileExport, HotspotUserExport } from './export-hotspot-users.js';
export { saveBackup } from './save-backup.js';
export type { BackupFile, SaveBackupOptions } from './save-backup.js';
