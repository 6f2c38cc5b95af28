// The database as Kysely sees it: each module declares its own tables; this file only joins them.
import type { AccountsTables } from '../modules/accounts/tables.js';
import type { LicencesTables } from '../modules/licences/tables.js';
import type { JobsTables } from '../jobs/tables.js';

export interface Database extends AccountsTables, LicencesTables, JobsTables {}
