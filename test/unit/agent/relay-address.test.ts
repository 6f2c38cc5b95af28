// The address an agent tells the controller its router must send RADIUS to.
import { expect } from 'chai';
import { relayAddressAsRouterSeesIt } from '../../../agent/radius-relay/relay-address.js';

describe('relay address as the router sees it', () => {
  // The route lookup answers as the host would: a container's veth, a LAN box's LAN address.
  const lookup = async (host: string) =>
    ({ '172.17.0.1': '172.17.0.2', '192.168.88.1': '192.168.88.20' })[host];
  const cases: [string, Parameters<typeof relayAddressAsRouterSeesIt>[0], string | undefined][] = [
    [
      'container: the veth address towards the router',
      { host: '0.0.0.0', routerHost: '172.17.0.1' },
      '172.17.0.2',
    ],
    [
      'LAN box: the LAN address towards the router',
      { host: '0.0.0.0', routerHost: '192.168.88.1' },
      '192.168.88.20',
    ],
    [
      'bound to one address: that one',
      { host: '192.168.88.30', routerHost: '192.168.88.1' },
      '192.168.88.30',
    ],
    [
      "the operator's setting wins (NAT)",
      { advertise: '10.0.0.9', host: '0.0.0.0', routerHost: '192.168.88.1' },
      '10.0.0.9',
    ],
    ['no route to the router: unknown', { host: '0.0.0.0', routerHost: '10.9.9.9' }, undefined],
  ];
  for (const [what, input, expected] of cases) {
    it(what, async () => expect(await relayAddressAsRouterSeesIt(input, lookup)).to.equal(expected));
  }
});
