// Generic record store for one RouterOS menu (e.g. /ip/hotspot/user). Every
// menu is a list of string-valued records with a hex id, like the router's own
// configuration database; behaviour that differs per menu comes from its
// MenuDef, not from subclasses.
import { EventEmitter } from 'node:events';
import { formatId, parseId } from './ros-format.js';
import type { Capabilities } from './version-caps.js';

export interface SimRecord {
  id: number;
  /**
   * Printed properties, in print order. `.id` is not stored here. The menu's unique property
   * (`MenuDef.unique`) is written through MenuTable only (update, patch, unsetProp): the table
   * indexes it.
   */
  props: Record<string, string>;
  /** Raw bytes for /file entries. */
  blob?: Buffer;
}

export interface MenuDef {
  path: string;
  /** A singleton (/system/identity) prints one record without `.id` and only supports print/set. */
  singleton?: boolean;
  /** Menu exists on this version only when the predicate holds (e.g. WireGuard on v7). */
  available?: (caps: Capabilities) => boolean;
  /** add/set/remove refused ("not allowed" style trap); print still works. */
  readOnly?: boolean;
  /** Entries can be removed even though the menu is read-only (/ip/hotspot/active kicks a user). */
  removable?: boolean;
  /** First id handed out, so ids look like a router that has lived (e.g. *1A). */
  firstId?: number;
  /** Properties a fresh `add` gets unless given. */
  defaults?: (caps: Capabilities) => Record<string, string>;
  /** Properties required by `add`. */
  required?: string[];
  /** Property that must be unique, and the trap message when it is not. */
  unique?: { prop: string; message: string };
  /** Properties printed as true/false; input yes/no/true/false is normalised. */
  booleans?: string[];
  /** Properties a client may never write. */
  readOnlyProps?: string[];
  /** Entries matching this cannot be removed; value is the trap message. */
  undeletable?: (rec: SimRecord) => string | undefined;
  /** The menu has no `add` (e.g. /interface: interfaces come from hardware or sub-menus). */
  noAdd?: boolean;
  /** Entries cannot be removed at all (e.g. /interface/ethernet). */
  noRemove?: boolean;
  /** Properties that must name an entry of another menu (or one of `also`). */
  refs?: Record<string, { menu: string; also?: string[] }>;
  /** Properties holding durations, normalised to the 1h30m form. */
  durations?: string[];
  /** Print order of properties for entries created by `add`. */
  fieldOrder?: string[];
  /**
   * Every property add/set accept. An unknown name traps "unknown parameter"
   * on the API and "expected end of command" in a script. Unset: anything goes.
   */
  props?: string[];
  /** Properties that are written but never printed (a user's password). */
  hidden?: string[];
  /** Rules in order: `add place-before=<id>` puts the new entry before that one (firewall). */
  ordered?: boolean;
}

export type ChangeKind = 'add' | 'set' | 'remove';

export class MenuTable extends EventEmitter {
  private readonly rows = new Map<number, SimRecord>();
  private nextId: number;
  /**
   * The unique property's value → the entries holding it, so that add/set check a name and a
   * print filtered by names find their entries without reading the whole menu (a router of
   * thousands of hotspot users). Entries are listed once; seeding may insert duplicates.
   */
  private readonly index = new Map<string, SimRecord[]>();
  /** The value each entry is indexed under (what it held at its last write through the table). */
  private readonly indexed = new Map<number, string>();
  /** Whether print order is id order: true until an entry is placed before another. */
  private idOrder = true;

  constructor(readonly def: MenuDef) {
    super();
    this.nextId = def.firstId ?? 1;
  }

  /** The property this table indexes (the unique one), if any. */
  get indexedProp(): string | undefined {
    return this.def.unique?.prop;
  }

  get path(): string {
    return this.def.path;
  }

  list(): SimRecord[] {
    return [...this.rows.values()];
  }

  get size(): number {
    return this.rows.size;
  }

  get(id: number): SimRecord | undefined {
    return this.rows.get(id);
  }

  /** The singleton record (created empty on first use). */
  single(): SimRecord {
    const first = this.rows.values().next();
    return first.done ? this.insert({}) : first.value;
  }

  /** The first entry, in print order, whose `prop` is `value`. */
  findBy(prop: string, value: string): SimRecord | undefined {
    if (prop === this.indexedProp) {
      const holders = this.index.get(value);
      if (holders === undefined) return undefined;
      if (holders.length === 1 && holders[0]!.props[prop] === value) return holders[0];
    }
    for (const rec of this.rows.values()) if (rec.props[prop] === value) return rec;
    return undefined;
  }

  /**
   * The entries whose indexed property is one of `values`, in print order; undefined when the
   * table cannot tell without reading every entry (no index on `prop`, or print order is not id
   * order).
   */
  holding(prop: string, values: Iterable<string>): SimRecord[] | undefined {
    if (prop !== this.indexedProp || !this.idOrder) return undefined;
    const found = new Set<SimRecord>();
    for (const value of values) for (const rec of this.index.get(value) ?? []) found.add(rec);
    return [...found].sort((a, b) => a.id - b.id);
  }

  private unindex(rec: SimRecord): void {
    const was = this.indexed.get(rec.id);
    if (was === undefined) return;
    this.indexed.delete(rec.id);
    const holders = this.index.get(was)?.filter((r) => r !== rec) ?? [];
    if (holders.length > 0) this.index.set(was, holders);
    else this.index.delete(was);
  }

  private reindex(rec: SimRecord): void {
    const prop = this.indexedProp;
    if (prop === undefined) return;
    const value = rec.props[prop];
    if (value === this.indexed.get(rec.id)) return;
    this.unindex(rec);
    if (value === undefined) return;
    this.indexed.set(rec.id, value);
    this.index.set(value, [...(this.index.get(value) ?? []), rec]);
  }

  /** Resolves an API reference: "*1A" id, or a name as RouterOS also accepts for `numbers`. */
  resolve(ref: string): SimRecord | undefined {
    const id = parseId(ref);
    if (id !== undefined) return this.rows.get(id);
    return this.findBy('name', ref);
  }

  /** Leaves a gap in the id sequence, as deleted entries do on a real router. */
  skipIds(count: number): void {
    this.nextId += count;
  }

  /** Inserts without validation (seeding and the add command use it); last, or before `before`. */
  insert(props: Record<string, string>, blob?: Buffer, before?: SimRecord): SimRecord {
    const rec: SimRecord = { id: this.nextId++, props: { ...props } };
    if (blob) rec.blob = blob;
    if (before && this.rows.has(before.id)) {
      // the new entry takes the place, its id stays the next one: print order is not id order
      this.idOrder = false;
      const rows = [...this.rows.values()];
      this.rows.clear();
      for (const row of rows) {
        if (row === before) this.rows.set(rec.id, rec);
        this.rows.set(row.id, row);
      }
    } else {
      this.rows.set(rec.id, rec);
    }
    this.reindex(rec);
    this.emit('change', 'add', rec);
    return rec;
  }

  /** Hands out the next id as insert does but keeps nothing (an add the router acknowledges and loses). */
  phantom(props: Record<string, string>): SimRecord {
    return { id: this.nextId++, props: { ...props } };
  }

  update(rec: SimRecord, props: Record<string, string>): void {
    this.patch(rec, props);
    this.emit('change', 'set', rec);
  }

  /** Writes properties without a change event: the simulator's own bookkeeping (a mirrored row). */
  patch(rec: SimRecord, props: Record<string, string>): void {
    Object.assign(rec.props, props);
    if (this.rows.get(rec.id) === rec) this.reindex(rec);
  }

  unsetProp(rec: SimRecord, prop: string): void {
    delete rec.props[prop];
    if (this.rows.get(rec.id) === rec) this.reindex(rec);
    this.emit('change', 'set', rec);
  }

  delete(rec: SimRecord): void {
    const held = this.rows.get(rec.id);
    if (held === undefined) return;
    this.rows.delete(rec.id);
    this.unindex(held);
    this.emit('change', 'remove', rec);
  }

  /** Record as printed, `.id` first (except for singletons). */
  view(rec: SimRecord, extra?: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = this.def.singleton ? {} : { '.id': formatId(rec.id) };
    Object.assign(out, rec.props, extra);
    for (const name of this.def.hidden ?? []) delete out[name];
    return out;
  }
}
