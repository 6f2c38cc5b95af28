// A statement compiled once by Kysely (so it is correct SQL for whichever dialect is open) and
// then run with fresh values. On the RADIUS hot path, building and compiling a query costs more
// than SQLite takes to answer it.
import type { CompiledQuery, QueryResult } from 'kysely';
import type { Db } from './database.js';

const MARK = '\u0000slot:';

/** Stands for the n-th value of a prepared statement when building it (typed as the column it fills). */
export const slot = <T = string>(n: number): T => `${MARK}${n}` as unknown as T;

export class PreparedStatement<R> {
  readonly #compiled: CompiledQuery<R>;
  /** For each parameter of the compiled SQL: the slot it takes, or -1 for a literal Kysely bound itself. */
  readonly #slots: number[];

  constructor(compiled: CompiledQuery<R>) {
    this.#compiled = compiled;
    this.#slots = compiled.parameters.map((p) =>
      typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1,
    );
  }

  /** The compiled SQL, for a driver that runs it itself (statement-sessions.ts). */
  get sql(): string {
    return this.#compiled.sql;
  }

  /** The parameters of the compiled SQL for these slot values. */
  parameters(values: readonly unknown[]): unknown[] {
    const fixed = this.#compiled.parameters;
    return this.#slots.map((s, i) => (s < 0 ? fixed[i] : values[s]));
  }

  run(db: Db, values: readonly unknown[]): Promise<QueryResult<R>> {
    return db.executeQuery<R>({ ...this.#compiled, parameters: this.parameters(values) });
  }
}

/** Slot numbering for a statement over `n` items: statement-wide values first, then each item's fields. */
export interface ShapeSlots {
  /** The statement-wide value `k` (the tenant, a time). */
  fixed<T = string>(k: number): T;
  /** Field `field` of item `item`. */
  item<T = string>(item: number, field: number): T;
}

/**
 * A statement over a variable number of items, compiled once in a few fixed sizes (e.g. 16, 4, 1)
 * and run greedily, biggest first: 23 items are one run of 16, one of 4 and three of 1. Fewer
 * statements than one per item (round trips on PostgreSQL), and no statement compiled per call.
 */
export class ShapedStatement<I, R = unknown> {
  readonly #shapes: [number, PreparedStatement<R>][];

  constructor(
    sizes: readonly number[],
    private readonly fixedCount: number,
    private readonly fieldCount: number,
    private readonly fields: (item: I) => readonly unknown[],
    build: (n: number, slots: ShapeSlots) => CompiledQuery<R>,
  ) {
    this.#shapes = [...sizes]
      .sort((a, b) => b - a)
      .map((n) => [
        n,
        new PreparedStatement(
          build(n, {
            fixed: <T = string>(k: number) => slot<T>(k),
            item: <T = string>(i: number, f: number) => slot<T>(fixedCount + i * fieldCount + f),
          }),
        ),
      ]);
  }

  /** Runs over all items; returns the rows of every run. */
  async run(db: Db, items: readonly I[], fixed: readonly unknown[] = []): Promise<R[]> {
    if (fixed.length !== this.fixedCount) throw new Error('wrong number of statement-wide values');
    const rows: R[] = [];
    let at = 0;
    for (const [size, statement] of this.#shapes) {
      for (; items.length - at >= size; at += size) {
        const values: unknown[] = [...fixed];
        for (let i = at; i < at + size; i++) {
          const f = this.fields(items[i]!);
          for (let j = 0; j < this.fieldCount; j++) values.push(f[j]);
        }
        rows.push(...(await statement.run(db, values)).rows);
      }
    }
    return rows;
  }
}
