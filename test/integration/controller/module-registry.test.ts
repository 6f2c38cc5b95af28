// The module list and its checks: a forgotten step (a module not listed, routes or jobs written but
// not registered, a table without migration or without owner) fails here or at start-up.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildModules,
  checkTableOwnership,
  moduleMigrations,
} from '../../../controller/modules/build-modules.js';
import {
  defineModule,
  type AnyModule,
  type ModuleContext,
} from '../../../controller/modules/define-module.js';
import { MODULES } from '../../../controller/modules/registry.js';
import { openDatabase } from '../../../controller/db/database.js';
import { migrateToLatest } from '../../../controller/db/migrate.js';

const moduleFolders = (): string[] => [
  ...readdirSync('controller/modules', { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join('controller/modules', e.name)),
  'controller/hub',
  'controller/radius',
];

describe('module registry', () => {
  it('lists every module folder exactly once, by its folder name', () => {
    const listed = MODULES.map((m) => m.name).sort();
    const folders = moduleFolders()
      .map((f) => f.split('/').pop()!)
      .sort();
    expect(listed).to.deep.equal(folders);
  });

  for (const folder of moduleFolders()) {
    const name = folder.split('/').pop()!;
    it(`${name}: index.ts exports its module, and module.ts registers what the folder holds`, () => {
      expect(existsSync(join(folder, 'index.ts')), 'index.ts').to.equal(true);
      expect(readFileSync(join(folder, 'index.ts'), 'utf8')).to.match(
        /export \{ \w+Module \} from '\.\/module\.js'/,
      );
      const module = readFileSync(join(folder, 'module.ts'), 'utf8');
      if (existsSync(join(folder, 'routes.ts')))
        expect(module, 'routes.ts written').to.match(/routes: \(api\)/);
      if (existsSync(join(folder, 'jobs.ts'))) expect(module, 'jobs.ts written').to.match(/jobs: \[/);
      if (existsSync(join(folder, 'migrations')))
        expect(module, 'migrations/ written').to.match(/migrations:/);
    });
  }

  it('gives every table one owner', () => {
    const owners = new Map<string, string>();
    for (const m of MODULES) {
      for (const t of m.tables) {
        expect(owners.get(t), `${t} owned twice`).to.equal(undefined);
        owners.set(t, m.name);
      }
    }
  });
});

describe('table ownership check', () => {
  const modules = [
    defineModule({ name: 'a', tables: ['a_one', 'a_two'], provides: [], build: () => ({ services: {} }) }),
    defineModule({ name: 'b', tables: ['b_one'], provides: [], build: () => ({ services: {} }) }),
  ];
  const cases: { title: string; existing: string[]; error: RegExp | null }[] = [
    {
      title: 'every declared table present',
      existing: ['a_one', 'a_two', 'b_one', 'job_leases'],
      error: null,
    },
    {
      title: 'a migration forgotten',
      existing: ['a_one', 'b_one', 'job_leases'],
      error: /no migration created a_two \(a\)/,
    },
    {
      title: 'a table without owner',
      existing: ['a_one', 'a_two', 'b_one', 'job_leases', 'stray'],
      error: /no module owns table\(s\) stray/,
    },
    {
      title: 'an infrastructure table missing',
      existing: ['a_one', 'a_two', 'b_one'],
      error: /job_leases \(the controller\)/,
    },
  ];
  for (const c of cases) {
    it(c.title, () => {
      const run = () => checkTableOwnership(c.existing, ['job_leases'], modules);
      if (c.error) expect(run).to.throw(c.error);
      else expect(run).not.to.throw();
    });
  }

  it('refuses a table declared by two modules', () => {
    const twice = [
      ...modules,
      defineModule({ name: 'c', tables: ['b_one'], provides: [], build: () => ({ services: {} }) }),
    ];
    expect(() => checkTableOwnership(['a_one', 'a_two', 'b_one'], [], twice)).to.throw(
      /owned by both b and module c/,
    );
  });
});

describe('module build order', () => {
  const base = {} as Omit<ModuleContext, 'use'>;
  const scheduler = {} as never;
  const provider = defineModule({
    name: 'provider',
    tables: [],
    provides: ['tickets'],
    build: () => ({ services: { tickets: {} as never } }),
  });
  const consumer = defineModule({
    name: 'consumer',
    tables: [],
    provides: [],
    build: ({ use }) => {
      use('tickets');
      return { services: {} };
    },
  });

  it('builds a module after those it uses', async () => {
    const built = await buildModules(base, { scheduler }, [provider, consumer]);
    expect(built.services.tickets).to.deep.equal({});
  });

  it('fails loudly when a module uses one listed after it', async () => {
    const error = await buildModules(base, { scheduler }, [consumer, provider]).catch((e: Error) => e);
    expect(String(error)).to.match(/module consumer uses tickets, which no module listed before it provides/);
  });

  it('fails when a module does not build what it provides, or two provide the same', async () => {
    const liar: AnyModule = defineModule({
      name: 'liar',
      tables: [],
      provides: ['radius'],
      build: () => ({ services: {} as never }),
    });
    expect(String(await buildModules(base, { scheduler }, [liar]).catch((e: Error) => e))).to.match(
      /did not build radius/,
    );
    expect(
      String(await buildModules(base, { scheduler }, [provider, provider]).catch((e: Error) => e)),
    ).to.match(/tickets is provided twice/);
  });

  it('refuses a module migration whose number is already taken, applying nothing', async () => {
    const handle = await openDatabase('sqlite::memory:');
    try {
      const m = { up: async () => undefined };
      const error = await migrateToLatest(handle.db, handle.caps, { '0011-again': m }).catch((e: Error) => e);
      expect(String(error)).to.match(/migration number of 0011-again is taken/);
      const tables = await handle.db.introspection.getTables();
      expect(tables).to.deep.equal([]);
    } finally {
      await handle.close();
    }
  });

  it('refuses a migration name two modules declare', () => {
    const m = { up: async () => undefined };
    const one = defineModule({
      name: 'one',
      tables: [],
      provides: [],
      migrations: { '0100-x': m },
      build: () => ({ services: {} }),
    });
    const two = defineModule({
      name: 'two',
      tables: [],
      provides: [],
      migrations: { '0100-x': m },
      build: () => ({ services: {} }),
    });
    expect(() => moduleMigrations([one, two])).to.throw(/0100-x is declared twice \(module two\)/);
  });
});

describe('table access', () => {
  const owner = new Map(MODULES.flatMap((m) => m.tables.map((t) => [t, m.name] as const)));
  const tableRef = new RegExp(
    String.raw`(?:selectFrom|updateTable|insertInto|deleteFrom|Join)\(\s*'([a-z_]+)|\b(?:from|join|update|into)\s+([a-z_]+)\b`,
    'g',
  );
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? e.name === 'migrations'
          ? []
          : sources(join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [join(dir, e.name)]
          : [],
    );

  for (const folder of moduleFolders()) {
    const name = folder.split('/').pop()!;
    it(`${name} queries only its own tables`, () => {
      const foreign: string[] = [];
      for (const file of sources(folder)) {
        for (const m of readFileSync(file, 'utf8').matchAll(tableRef)) {
          const table = m[1] ?? m[2]!;
          const by = owner.get(table);
          if (by && by !== name) foreign.push(`${file}: ${table} (${by})`);
        }
      }
      expect(foreign).to.deep.equal([]);
    });
  }
});
