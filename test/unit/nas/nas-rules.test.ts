// Pure rules of the NAS module: the enrolment body, eligibility, the topology's shape and warnings,
// and the catalogue entries the agent answers for it.
import { expect } from 'chai';
import { COMMANDS, parseCommandOutput, parseCommandParams } from '../../../protocol/index.js';
import type { AppError } from '../../../controller/core/app-error.js';
import type { AllocationView } from '../../../controller/modules/allocations/service.js';
import { eligibility } from '../../../controller/modules/nas/nas-view.js';
import { parseEnrolBody } from '../../../controller/modules/nas/schemas.js';
import type { NasTable } from '../../../controller/modules/nas/tables.js';
import { buildTopology } from '../../../controller/modules/nas/topology.js';

const allocation = (over: Partial<AllocationView> = {}, serial = 'AAAA0001'): AllocationView => ({
  id: 'alloc-1',
  label: null,
  created_at: '2026-11-21T08:00:00.000Z',
  status: 'ENROLLED',
  enrolment_expires_at: null,
  enrolled_at: '2026-11-21T08:00:00.000Z',
  agent_version: '0.1.0',
  link_state: 'CONNECTED',
  last_seen_at: '2026-11-21T08:00:00.000Z',
  router: {
    serial,
    identity: 'Site',
    model: 'RB951',
    routeros_version: '7.19',
    architecture: 'arm64',
    board_name: 'hAP',
    free_hdd_bytes: 1,
    total_hdd_bytes: 2,
    updated_at: null,
  },
  radius_relay: null,
  ...over,
});

const nas = (over: Partial<NasTable> = {}): NasTable => ({
  id: 'nas-1',
  client_id: 'c',
  allocation_id: 'alloc-1',
  nasname: 'agent:alloc-1',
  shortname: 'Site',
  secret: 'deadbeef',
  role: 'PRIMARY',
  status: 'ACTIVE',
  apply_mode: 'server',
  router_serial: 'AAAA0001',
  model: 'RB951',
  created_at: '2026-11-21T08:00:00.000Z',
  updated_at: '2026-11-21T08:00:00.000Z',
  activated_at: '2026-11-21T08:00:00.000Z',
  verified_at: null,
  deleted_at: null,
  ...over,
});

describe('NAS enrolment body', () => {
  const code = (body: unknown) => {
    try {
      parseEnrolBody(body);
      return 'OK';
    } catch (err) {
      return (err as AppError).code;
    }
  };

  it('needs a non-empty string serial of at most 64 characters, whatever else the body holds', () => {
    for (const body of [
      undefined,
      null,
      [],
      'AAAA',
      7,
      {},
      { router_serial: 7 },
      { router_serial: ' ' },
      { router_serial: 'A'.repeat(65) },
    ]) {
      expect(code(body), JSON.stringify(body)).to.equal('ROUTER_SERIAL_REQUIRED');
    }
    expect(parseEnrolBody({ router_serial: ' hex1 ', client_id: 'ignored' })).to.deep.equal({
      routerSerial: 'hex1',
      applyMode: 'server',
    });
  });

  it("takes apply_mode 'app_apply', absent (or null, or 'server') as server mode, and refuses the rest", () => {
    expect(parseEnrolBody({ router_serial: 'x', apply_mode: 'app_apply' }).applyMode).to.equal('app_apply');
    expect(parseEnrolBody({ router_serial: 'x', apply_mode: null }).applyMode).to.equal('server');
    expect(parseEnrolBody({ router_serial: 'x', apply_mode: 'server' }).applyMode).to.equal('server');
    expect(code({ router_serial: 'x', apply_mode: 'APP_APPLY' })).to.equal('VALIDATION_ERROR');
  });
});

describe('NAS eligibility and topology', () => {
  it('names the deepest cause first', () => {
    expect(eligibility(nas(), allocation())).to.deep.equal({ eligible: true, code: 'ELIGIBLE' });
    expect(eligibility(nas({ status: 'PENDING' }), allocation()).code).to.equal('NOT_VERIFIED');
    expect(eligibility(nas(), allocation({ status: 'REVOKED', link_state: 'DISCONNECTED' })).code).to.equal(
      'ALLOCATION_REVOKED',
    );
    expect(eligibility(nas(), undefined).code).to.equal('ALLOCATION_REVOKED');
    expect(eligibility(nas(), allocation({ link_state: 'DISCONNECTED' }, 'BBBB0002')).code).to.equal(
      'ROUTER_CHANGED',
    );
    expect(eligibility(nas(), allocation({}, 'aaaa0001')).code).to.equal('ELIGIBLE');
    expect(eligibility(nas(), allocation({ link_state: 'DISCONNECTED' })).code).to.equal(
      'TUNNEL_DISCONNECTED',
    );
  });

  it('puts the ACTIVE PRIMARY apart, MEMBERs in order, and warns about every anomaly', () => {
    const rows = [
      nas({ id: 'p', allocation_id: 'a1' }),
      nas({ id: 'm1', role: 'MEMBER', allocation_id: 'a2' }),
      nas({ id: 'm2', role: 'MEMBER', allocation_id: 'a3', status: 'PENDING' }),
    ];
    const allocations = new Map([
      ['a1', allocation({ id: 'a1', link_state: 'DISCONNECTED' })],
      ['a2', allocation({ id: 'a2' })],
      ['a3', allocation({ id: 'a3' })],
    ]);
    const topo = buildTopology(rows, allocations, new Map([['m1', 3]]));
    expect(topo.primary?.id).to.equal('p');
    expect(topo.members.map((m) => [m.id, m.sessions_open])).to.deep.equal([['m1', 3]]);
    expect(topo.warnings.map((w) => [w.code, w.nas_id])).to.deep.equal([
      ['NAS_PENDING_VERIFICATION', 'm2'],
      ['PRIMARY_TUNNEL_DISCONNECTED', 'p'],
    ]);
    expect(JSON.stringify(topo)).not.to.include('deadbeef');
  });

  it('is empty with primary null when nothing is ACTIVE', () => {
    expect(buildTopology([], new Map(), new Map())).to.deep.equal({
      primary: null,
      members: [],
      warnings: [],
    });
  });
});

describe('NAS catalogue commands', () => {
  it('checks router.script.apply params', () => {
    expect(
      parseCommandParams('router.script.apply', { name: 'ticketnet-radius', source: '/log info x' }).ok,
    ).to.equal(true);
    for (const params of [
      { name: 'bad name', source: 'x' },
      { name: 'ok', source: '' },
      { name: 'ok' },
      { name: 'ok', source: 'x', extra: 1 },
    ]) {
      expect(parseCommandParams('router.script.apply', params).ok, JSON.stringify(params)).to.equal(false);
    }
  });

  it('checks radius.status output (a secret never travels, only its SHA-256)', () => {
    const good = {
      radius: [
        {
          address: '172.31.255.2',
          service: ['hotspot'],
          secret_sha256: 'a'.repeat(64),
          authentication_port: 1812,
          accounting_port: null,
          comment: 'ticketnet:x',
          disabled: false,
        },
      ],
      hotspot_profiles: [{ name: 'hsprof1', use_radius: true, radius_accounting: true, in_use: true }],
      incoming_accept: true,
    };
    expect(parseCommandOutput('radius.status', good).ok).to.equal(true);
    const plain = { ...good, radius: [{ ...good.radius[0], secret_sha256: 'plain-secret' }] };
    expect(parseCommandOutput('radius.status', plain).ok).to.equal(false);
    expect(COMMANDS['radius.status'].defaultTimeoutSeconds).to.be.greaterThan(0);
  });
});
