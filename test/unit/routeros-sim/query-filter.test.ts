import { expect } from 'chai';
import { compileQuery, requiredValues } from '../../routeros-sim/query-filter.js';

const rows: Array<Record<string, string>> = [
  { '.id': '*1', name: 'ether1', type: 'ether', mtu: '1500' },
  { '.id': '*A', name: 'vlan10', type: 'vlan', mtu: '1496', comment: 'x' },
  { '.id': '*1B', name: 'wg0', type: 'wg', mtu: '1420' },
];
const names = (words: string[]): string[] => rows.filter(compileQuery(words)).map((r) => r.name ?? '');

describe('routeros-sim query filter', () => {
  it('handles equality, presence, absence and comparisons', () => {
    expect(names(['type=ether'])).to.deep.equal(['ether1']);
    expect(names(['=type=vlan'])).to.deep.equal(['vlan10']);
    expect(names(['comment'])).to.deep.equal(['vlan10']);
    expect(names(['-comment'])).to.deep.equal(['ether1', 'wg0']);
    expect(names(['>mtu=1450'])).to.deep.equal(['ether1', 'vlan10']);
    expect(names(['<mtu=1450'])).to.deep.equal(['wg0']);
    expect(names(['>.id=*9'])).to.deep.equal(['vlan10', 'wg0']);
  });

  it('combines with the ?# stack operations', () => {
    expect(names(['type=ether', 'type=wg', '#|'])).to.deep.equal(['ether1', 'wg0']);
    expect(names(['type=ether', 'type=wg', '#|!'])).to.deep.equal(['vlan10']);
    expect(names(['type=vlan', '>mtu=1000', '#&'])).to.deep.equal(['vlan10']);
    // without operations every pushed value must hold
    expect(names(['type=vlan', '>mtu=1500'])).to.deep.equal([]);
  });

  describe('values a query requires of a property', () => {
    it('reads the plain forms: ANDed tests, and equalities folded by as many ORs', () => {
      expect(requiredValues(['name=wg0'], 'name')).to.deep.equal(['wg0']);
      expect(requiredValues(['=name=wg0'], 'name')).to.deep.equal(['wg0']);
      expect(requiredValues(['type=wg', 'name=wg0', '>mtu=1'], 'name')).to.deep.equal(['wg0']);
      expect(requiredValues(['name=a', 'name=b', 'name=c', '#||'], 'name')).to.deep.equal(['a', 'b', 'c']);
      expect(requiredValues(['name=a', 'name=b', '#|', 'type=wg'], 'name')).to.deep.equal(['a', 'b']);
      // a value holding '=' is the value's own
      expect(requiredValues(['name=a=b'], 'name')).to.deep.equal(['a=b']);
    });

    it('declines anything else', () => {
      const declined: string[][] = [
        [],
        ['type=wg'],
        ['-name'],
        ['name'],
        ['<name=m'],
        ['name=a', 'name=b', '#|!'],
        ['name=a', 'name=b', 'name=c', '#|'],
        ['name=a', 'type=wg', '#|'],
        ['name=a', 'name=b', '#|', 'type=wg', 'type=vlan', '#|'],
        ['type=wg', 'name=a', 'name=b', '#|'],
        ['name=a', '#!'],
      ];
      for (const words of declined)
        expect(requiredValues(words, 'name'), words.join(' ')).to.equal(undefined);
      expect(requiredValues(['.id=*1'], '.id')).to.equal(undefined);
      expect(requiredValues(['disabled=yes'], 'disabled', ['disabled'])).to.equal(undefined);
    });

    it('never leaves out an entry the query matches', () => {
      const queries: string[][] = [
        ['name=wg0'],
        ['name=ether1', 'name=wg0', '#|'],
        ['name=ether1', 'name=vlan10', '#|', '>mtu=1450'],
        ['name=ether1', 'name=vlan10', 'name=nope', '#||', 'comment'],
        ['type=vlan', 'name=vlan10'],
      ];
      for (const words of queries) {
        const values = requiredValues(words, 'name');
        expect(values, words.join(' ')).to.not.equal(undefined);
        const matched = rows.filter(compileQuery(words));
        expect(matched.length, words.join(' ')).to.be.greaterThan(0);
        for (const row of matched) expect(values).to.include(row.name);
      }
    });
  });
});
