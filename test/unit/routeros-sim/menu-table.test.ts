// The simulator's menu table finds entries by their unique property through an index: whatever
// the writes, it must answer what reading every entry answers.
import { expect } from 'chai';
import { MenuTable, type MenuDef, type SimRecord } from '../../routeros-sim/menu-table.js';
import { Prng } from '../../routeros-sim/prng.js';

const DEF: MenuDef = {
  path: '/ip/hotspot/user',
  unique: { prop: 'name', message: 'failure: already have user with this name' },
};

/** What the table must answer, read entry by entry in print order. */
const scanFirst = (t: MenuTable, value: string) => t.list().find((r) => r.props.name === value);
const scanAll = (t: MenuTable, values: string[]) => t.list().filter((r) => values.includes(r.props.name!));

describe('routeros-sim menu table index', () => {
  it('finds by name as a full read does, through adds, renames, unsets, removals and duplicates', () => {
    const rng = new Prng(7);
    const table = new MenuTable(DEF);
    const names = Array.from({ length: 12 }, (_, i) => `u${i}`);
    const pick = () => names[rng.int(0, names.length - 1)]!;
    const anyEntry = (): SimRecord | undefined => table.list()[rng.int(0, Math.max(table.size - 1, 0))];
    for (let step = 0; step < 2000; step++) {
      const entry = anyEntry();
      switch (rng.int(0, 5)) {
        case 0:
          // seeding inserts without the unique check: duplicates can exist
          table.insert({ name: pick(), profile: 'default' });
          break;
        case 1:
          if (entry) table.update(entry, { name: pick() });
          break;
        case 2:
          if (entry) table.patch(entry, { name: pick() });
          break;
        case 3:
          if (entry) table.unsetProp(entry, 'name');
          break;
        case 4:
          if (entry) table.delete(entry);
          break;
        default:
          // a write that leaves the name alone
          if (entry) table.update(entry, { comment: `c${step}` });
      }
      for (const name of names) expect(table.findBy('name', name)).to.equal(scanFirst(table, name));
      const wanted = [pick(), pick(), pick()];
      expect(table.holding('name', wanted)).to.deep.equal(scanAll(table, wanted));
    }
  });

  it('finds other properties by reading the entries', () => {
    const table = new MenuTable(DEF);
    table.insert({ name: 'a', profile: 'p1' });
    const b = table.insert({ name: 'b', profile: 'p2' });
    expect(table.findBy('profile', 'p2')).to.equal(b);
    expect(table.holding('profile', ['p2'])).to.equal(undefined);
  });

  it('leaves the index aside once an entry is placed before another (print order is not id order)', () => {
    const table = new MenuTable({ ...DEF, ordered: true });
    const first = table.insert({ name: 'a' });
    const second = table.insert({ name: 'b' }, undefined, first);
    expect(table.list()).to.deep.equal([second, first]);
    expect(table.holding('name', ['a', 'b'])).to.equal(undefined);
    expect(table.findBy('name', 'b')).to.equal(second);
  });

  it('forgets a removed entry even when handed a copy of it', () => {
    const table = new MenuTable(DEF);
    const rec = table.insert({ name: 'a' });
    table.delete({ id: rec.id, props: { name: 'a' } });
    expect(table.findBy('name', 'a')).to.equal(undefined);
    expect(table.holding('name', ['a'])).to.deep.equal([]);
  });
});
