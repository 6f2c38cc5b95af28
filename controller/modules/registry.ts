// Every module of the controller, once, in the order they are built: a module may use the services
// of those above it. Adding a module touches this file and the module's own folder, nothing else
// (docs/adding-a-module.md).
import type { JobsTables } from '../jobs/tables.js';
import type { Scheduler } from '../jobs/scheduler.js';
import {
  hubModule,
  type AgentCommandRunner,
  type AgentHub,
  type AgentLinks,
  type CommandService,
  type HubTables,
} from '../hub/index.js';
import { radiusModule, type RadiusService, type RadiusTables } from '../radius/index.js';
import { accountsModule, type AccountsService, type AccountsTables } from './accounts/index.js';
import { adminModule } from './admin/index.js';
import { affluenceModule, type AffluenceService } from './affluence/index.js';
import { allocationsModule, type AllocationsService, type AllocationsTables } from './allocations/index.js';
import { equipmentModule, type EquipmentService, type EquipmentTables } from './equipment/index.js';
import { healthModule } from './health/index.js';
import { licencesModule, type LicencesService, type LicencesTables } from './licences/index.js';
import { migrationModule, type MigrationService, type MigrationTables } from './migration/index.js';
import { nasModule, type DbNasDirectory, type NasService, type NasTables } from './nas/index.js';
import {
  notificationsModule,
  type NotificationsService,
  type NotificationsTables,
  type PremiereAuthNotifier,
} from './notifications/index.js';
import { resellersModule, type ResellersService, type ResellersTables } from './resellers/index.js';
import {
  remoteAccessModule,
  type RemoteAccessService,
  type RemoteAccessTables,
} from './remote-access/index.js';
import { salesModule, type SalesService, type SalesTables } from './sales/index.js';
import { shopModule, type ShopService, type ShopTables } from './shop/index.js';
import { takeoverModule, type TakeoverService, type TakeoverTables } from './takeover/index.js';
import { usageModule, type UsageService, type UsageTables } from './usage/index.js';
import { bandwidthModule, type BandwidthService, type BandwidthTables } from './bandwidth/index.js';
import { qoeModule, type QoeService, type QoeTables } from './qoe/index.js';
import {
  ticketsModule,
  type ProfilesService,
  type RouterImportService,
  type TicketAuthService,
  type TicketsService,
  type TicketsTables,
} from './tickets/index.js';
import { realtimeModule, type RealtimeBroker, type RealtimeTables } from './realtime/index.js';
import { supportModule, type SupportService, type SupportTables } from './support/index.js';

export type { ControllerOptions } from './controller-options.js';

export const MODULES = [
  healthModule,
  accountsModule,
  licencesModule,
  allocationsModule,
  hubModule,
  ticketsModule,
  nasModule,
  radiusModule,
  resellersModule,
  takeoverModule,
  salesModule,
  notificationsModule,
  affluenceModule,
  migrationModule,
  adminModule,
  shopModule,
  remoteAccessModule,
  equipmentModule,
  usageModule,
  bandwidthModule,
  qoeModule,
  realtimeModule,
  supportModule,
] as const;

/** What the modules provide, by name (`ModuleContext.use`); `scheduler` is the controller's own. */
export interface Services {
  scheduler: Scheduler;
  accounts: AccountsService;
  licences: LicencesService;
  allocations: AllocationsService;
  hub: AgentHub;
  commands: CommandService;
  agentLinks: AgentLinks;
  runner: AgentCommandRunner;
  tickets: TicketsService;
  profiles: ProfilesService;
  ticketImport: RouterImportService;
  ticketAuth: TicketAuthService;
  nas: NasService;
  nasDirectory: DbNasDirectory;
  radius: RadiusService;
  resellers: ResellersService;
  takeover: TakeoverService;
  sales: SalesService;
  notifications: NotificationsService;
  premiere: PremiereAuthNotifier;
  affluence: AffluenceService;
  migration: MigrationService;
  shop: ShopService;
  remoteAccess: RemoteAccessService;
  equipment: EquipmentService;
  usage: UsageService;
  bandwidth: BandwidthService;
  qoe: QoeService;
  realtime: RealtimeBroker;
  support: SupportService;
}

/** The database as Kysely sees it: each module declares its own tables; this joins them. */
export interface Database
  extends
    JobsTables,
    AccountsTables,
    LicencesTables,
    AllocationsTables,
    HubTables,
    TicketsTables,
    NasTables,
    RadiusTables,
    ResellersTables,
    TakeoverTables,
    SalesTables,
    NotificationsTables,
    MigrationTables,
    ShopTables,
    RemoteAccessTables,
    EquipmentTables,
    UsageTables,
    BandwidthTables,
    QoeTables,
    RealtimeTables,
    SupportTables {}
