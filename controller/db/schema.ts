// The database as Kysely sees it: the registry joins the tables every module declares.
export type { Database } from '../modules/registry.js';
