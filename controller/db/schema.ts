// The database as Kysely sees it: each module declares its own tables; this file only joins them.
import type { AccountsTables } from '../modules/accounts/tables.js';
import type { LicencesTables } from '../modules/licences/tables.js';
import type { JobsTables } from '../jobs/tables.js';
import type { AllocationsTables } from '../modules/allocations/tables.js';
import type { HubTables } from '../hub/tables.js';
import type { TicketsTables } from '../modules/tickets/tables.js';
import type { RadiusTables } from '../radius/tables.js';
import type { ResellersTables } from '../modules/resellers/tables.js';
import type { NasTables } from '../modules/nas/tables.js';
import type { TakeoverTables } from '../modules/takeover/tables.js';
import type { SalesTables } from '../modules/sales/tables.js';
import type { NotificationsTables } from '../modules/notifications/tables.js';
import type { MigrationTables } from '../modules/migration/tables.js';

export interface Database
  extends
    AccountsTables,
    LicencesTables,
    JobsTables,
    AllocationsTables,
    HubTables,
    TicketsTables,
    RadiusTables,
    ResellersTables,
    NasTables,
    TakeoverTables,
    SalesTables,
    NotificationsTables,
    MigrationTables {}
