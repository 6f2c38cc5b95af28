// What `bandwidth.apply` wants on the router and how it compares what the router prints back.
import { expect } from 'chai';
import { normaliseValue } from '../../../agent/commands/bandwidth-apply.js';
import { bandwidthPlan, type BandwidthParams } from '../../../agent/commands/bandwidth-plan.js';
import { gatewayInterface, inNetwork } from '../../../agent/routeros/wan-interface.js';

const cap: BandwidthParams = {
  cap: { limit_kbps: 8000, essential_share: 0.25 },
  classes: [{ id: 'dns', ranges: ['8.8.8.8/32'] }],
  users: [],
};

describe('agent bandwidth plan', () => {
  it('puts the cap on global parents, essential first with limit-at = share x cap, the rest low', () => {
    const plan = bandwidthPlan(cap, 'ether1', true);
    const tree = Object.fromEntries(plan.tree.map((o) => [o.props.name, o.props]));
    expect(tree['tn-bw-down']).to.include({ parent: 'global', 'max-limit': '8000000' });
    expect(tree['tn-bw-ess-down']).to.include({
      priority: '1',
      'limit-at': '2000000',
      'max-limit': '8000000',
    });
    expect(tree['tn-bw-rest-up']).to.include({
      priority: '8',
      'limit-at': '0',
      'max-limit': '8000000',
      queue: 'tn-bw-pcq-up',
    });
    expect(plan.filter.map((o) => o.key)).to.deep.equal(['f.all']);
    for (const menu of ['list', 'mangle', 'tree', 'filter'] as const)
      for (const o of plan[menu]) expect(o.props.comment).to.equal(`ticketnet:bw:${o.key}`);
  });

  it('holds FastTrack only where a FastTrack rule exists, and plans nothing when off', () => {
    expect(bandwidthPlan(cap, 'ether1', false).filter).to.deep.equal([]);
    const off = bandwidthPlan({ cap: null, classes: cap.classes, users: [] }, 'ether1', true);
    expect(Object.values(off).flat()).to.deep.equal([]);
  });

  it('gives a throttled user one queue per direction over their list, parents unlimited without a cap', () => {
    const plan = bandwidthPlan(
      {
        cap: null,
        classes: [],
        users: [{ key: 'abc', limit_kbps: 1000, addresses: ['10.5.50.2', '10.5.50.3'] }],
      },
      'ether1',
      true,
    );
    expect(plan.list.map((o) => o.props.address)).to.deep.equal(['10.5.50.2', '10.5.50.3']);
    expect(plan.tree.map((o) => [o.props.name, o.props['max-limit']])).to.deep.equal([
      ['tn-bw-down', '0'],
      ['tn-bw-up', '0'],
      ['tn-bw-u-abc-down', '1000000'],
      ['tn-bw-u-abc-up', '1000000'],
    ]);
    expect(plan.filter.map((o) => o.key)).to.deep.equal(['f.u.abc.up', 'f.u.abc.down']);
    expect(plan.type).to.deep.equal([]);
  });

  it('reads values as RouterOS prints them back', () => {
    const cases: [string | undefined, string][] = [
      ['yes', 'true'],
      ['false', 'false'],
      ['10M', '10000000'],
      ['2.5M', '2500000'],
      ['512k', '512000'],
      ['1G', '1000000000'],
      ['8000000', '8000000'],
      [undefined, ''],
      ['ether1', 'ether1'],
    ];
    for (const [given, want] of cases) expect(normaliseValue(given), String(given)).to.equal(want);
  });

  it('finds the WAN interface as RouterOS 6 and 7 print it', () => {
    expect(gatewayInterface('192.168.1.1%ether1', 'immediate-gw')).to.equal('ether1');
    expect(gatewayInterface('192.168.1.1 reachable via  ether1', 'gateway-status')).to.equal('ether1');
    expect(gatewayInterface('192.168.1.1 unreachable', 'gateway-status')).to.equal(undefined);
    expect(gatewayInterface(undefined, 'immediate-gw')).to.equal(undefined);
    expect(inNetwork('192.168.1.1', '192.168.1.23/24')).to.equal(true);
    expect(inNetwork('192.168.2.1', '192.168.1.23/24')).to.equal(false);
    expect(inNetwork('10.0.0.1', '0.0.0.0/0')).to.equal(true);
  });
});
