// Which management services open a port, and how `web_access` writes them: by table.
import { expect } from 'chai';
import {
  webAccessTargets,
  webAccessView,
  type RouterService,
  type ServiceTarget,
} from '../../../controller/modules/equipment/web-access-rules.js';

const svc = (
  name: string,
  port: number,
  disabled = false,
  certificate: string | null = null,
): RouterService => ({
  name,
  port,
  disabled,
  certificate,
});

const DEFAULTS = [
  svc('telnet', 23, true),
  svc('ftp', 21),
  svc('www', 80),
  svc('ssh', 22),
  svc('www-ssl', 443, true),
  svc('api', 8728),
  svc('winbox', 8291),
  svc('api-ssl', 8729),
];
const without = (name: string) => DEFAULTS.filter((s) => s.name !== name && s.name !== 'www-ssl');

describe('web access: which services open a port', () => {
  const cases: [string, RouterService[], ServiceTarget[]][] = [
    [
      "a router's defaults: www on 80 is http",
      DEFAULTS,
      [
        { field: 'web_ui', routerPort: 80, scheme: 'http' },
        { field: 'desktop_tool', routerPort: 8291 },
        { field: 'api', routerPort: 8728 },
        { field: 'ssh', routerPort: 22 },
      ],
    ],
    [
      'www off, www-ssl on 8081 with a certificate: https on 8081',
      [...without('www'), svc('www', 80, true), svc('www-ssl', 8081, false, 'webfig')],
      [
        { field: 'web_ui', routerPort: 8081, scheme: 'https' },
        { field: 'desktop_tool', routerPort: 8291 },
        { field: 'api', routerPort: 8728 },
        { field: 'ssh', routerPort: 22 },
      ],
    ],
    [
      'www on 8081 (moved, plain): still http, the service decides, not the number',
      [...without('www'), svc('www', 8081)],
      [
        { field: 'web_ui', routerPort: 8081, scheme: 'http' },
        { field: 'desktop_tool', routerPort: 8291 },
        { field: 'api', routerPort: 8728 },
        { field: 'ssh', routerPort: 22 },
      ],
    ],
    [
      'both web services on: plain www first, never forced to https',
      [...without('www'), svc('www', 80), svc('www-ssl', 443, false, 'webfig')],
      [
        { field: 'web_ui', routerPort: 80, scheme: 'http' },
        { field: 'desktop_tool', routerPort: 8291 },
        { field: 'api', routerPort: 8728 },
        { field: 'ssh', routerPort: 22 },
      ],
    ],
    [
      'www-ssl without a certificate serves nothing: no web UI',
      [...without('www'), svc('www', 80, true), svc('www-ssl', 443, false, null)],
      [
        { field: 'desktop_tool', routerPort: 8291 },
        { field: 'api', routerPort: 8728 },
        { field: 'ssh', routerPort: 22 },
      ],
    ],
    [
      'winbox, api and ssh off: only the web UI; api-ssl is not the api',
      DEFAULTS.map((s) => (['winbox', 'api', 'ssh'].includes(s.name) ? { ...s, disabled: true } : s)),
      [{ field: 'web_ui', routerPort: 80, scheme: 'http' }],
    ],
    ['nothing read', [], []],
  ];
  for (const [name, services, expected] of cases) {
    it(name, () => expect(webAccessTargets(services)).to.deep.equal(expected));
  }
});

describe('web access: the topology strings', () => {
  it('{vpn_host}:port per opened port, the web UI as a URL with its scheme, null elsewhere', () => {
    expect(
      webAccessView(
        'vpn.example.net',
        [
          { field: 'web_ui', publicPort: 30001, scheme: 'https' },
          { field: 'ssh', publicPort: 30004 },
        ],
        true,
      ),
    ).to.deep.equal({
      web_ui: 'https://vpn.example.net:30001',
      desktop_tool: null,
      api: null,
      ssh: 'vpn.example.net:30004',
      reachable: true,
    });
  });
  it('nothing opened: four nulls; an IPv6 host takes brackets', () => {
    expect(webAccessView('', [], false)).to.deep.equal({
      web_ui: null,
      desktop_tool: null,
      api: null,
      ssh: null,
      reachable: false,
    });
    expect(webAccessView('2001:db8::1', [{ field: 'api', publicPort: 30002 }], true).api).to.equal(
      '[2001:db8::1]:30002',
    );
  });
});
