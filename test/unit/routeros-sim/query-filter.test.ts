import { expect } from 'chai';
import { compileQuery } from '../../routeros-sim/query-filter.js';

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
});
