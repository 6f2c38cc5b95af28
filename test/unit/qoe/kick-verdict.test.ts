// The kick's verdict, case by case: SUCCEEDED only on a sight of the session's end (a Stop of that
// session, the active list without it, or the removal's own read of the list), never on an ACK;
// FAILED at the deadline with the reason the evidence gives; the Disconnect-Request's attributes.
import { expect } from 'chai';
import radius from 'radius';
import { disconnectRequest } from '../../../controller/radius/disconnect-request.js';
import { accountingAuthenticatorValid } from '../../../controller/radius/packet-crypto.js';
import {
  kickVerdict,
  type KickEvidence,
  type KickVerdict,
} from '../../../controller/modules/qoe/kick-verdict.js';

const radiusCmd = (answer: 'ACK' | 'NAK' | 'NONE') => ({
  state: 'DONE' as const,
  output: { answer, error_cause: null },
});
const removal = (found: number, remaining: number) => ({
  state: 'DONE' as const,
  output: { found, removed: found - remaining, remaining },
});
const base: KickEvidence = {
  method: 'RADIUS_DISCONNECT',
  accounting: 'OPEN',
  command: null,
  activeHolds: null,
  deadlinePassed: false,
};

describe('qoe kick verdict', () => {
  const cases: [string, Partial<KickEvidence>, KickVerdict][] = [
    ['queued, nothing seen yet', {}, { state: 'RUNNING' }],
    ['ACK alone is no success', { command: radiusCmd('ACK') }, { state: 'RUNNING', routerAnswer: 'ACK' }],
    [
      'ACK and the active list still holds it',
      { command: radiusCmd('ACK'), activeHolds: true },
      { state: 'RUNNING', routerAnswer: 'ACK' },
    ],
    [
      'Stop of that session',
      { accounting: 'STOPPED', command: radiusCmd('ACK') },
      { state: 'SUCCEEDED', endedBy: 'ACCOUNTING_STOP', routerAnswer: 'ACK' },
    ],
    [
      'Stop before the command came back',
      { accounting: 'STOPPED' },
      { state: 'SUCCEEDED', endedBy: 'ACCOUNTING_STOP' },
    ],
    [
      'the active list no longer holds it',
      { command: radiusCmd('ACK'), activeHolds: false },
      { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', routerAnswer: 'ACK' },
    ],
    [
      'NAK, yet the session is gone',
      { command: radiusCmd('NAK'), activeHolds: false },
      { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', routerAnswer: 'NAK' },
    ],
    [
      'deadline: never delivered',
      { command: { state: 'QUEUED', output: null }, deadlinePassed: true },
      { state: 'FAILED', reason: 'ROUTER_UNREACHABLE' },
    ],
    [
      'deadline: expired on the way',
      { command: { state: 'EXPIRED', output: null }, deadlinePassed: true },
      { state: 'FAILED', reason: 'ROUTER_UNREACHABLE' },
    ],
    ['deadline: never queued', { deadlinePassed: true }, { state: 'FAILED', reason: 'ROUTER_UNREACHABLE' }],
    [
      'deadline: the agent refused',
      { command: { state: 'FAILED', output: null }, deadlinePassed: true },
      { state: 'FAILED', reason: 'ROUTER_COMMAND_FAILED' },
    ],
    [
      'deadline: NAK',
      { command: radiusCmd('NAK'), activeHolds: true, deadlinePassed: true },
      { state: 'FAILED', reason: 'ROUTER_NAK', routerAnswer: 'NAK' },
    ],
    [
      'deadline: no answer',
      { command: radiusCmd('NONE'), deadlinePassed: true },
      { state: 'FAILED', reason: 'ROUTER_NO_ANSWER', routerAnswer: 'NONE' },
    ],
    [
      'deadline: ACK and still there',
      { command: radiusCmd('ACK'), activeHolds: true, deadlinePassed: true },
      { state: 'FAILED', reason: 'SESSION_END_NOT_SEEN', routerAnswer: 'ACK' },
    ],
    [
      'deadline: ACK, list unread',
      { command: radiusCmd('ACK'), deadlinePassed: true },
      { state: 'FAILED', reason: 'SESSION_END_NOT_SEEN', routerAnswer: 'ACK' },
    ],
    [
      'local: removed, the list read after is empty',
      { method: 'HOTSPOT_ACTIVE_REMOVE', accounting: null, command: removal(1, 0) },
      { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', routerAnswer: 'REMOVED' },
    ],
    [
      'local: kept by the router',
      { method: 'HOTSPOT_ACTIVE_REMOVE', accounting: null, command: removal(1, 1) },
      { state: 'RUNNING', routerAnswer: 'KEPT' },
    ],
    [
      'local: kept at the deadline',
      { method: 'HOTSPOT_ACTIVE_REMOVE', accounting: null, command: removal(1, 1), deadlinePassed: true },
      { state: 'FAILED', reason: 'SESSION_END_NOT_SEEN', routerAnswer: 'KEPT' },
    ],
    [
      'local: no such session on the router',
      { method: 'HOTSPOT_ACTIVE_REMOVE', accounting: null, command: removal(0, 0), activeHolds: false },
      { state: 'FAILED', reason: 'SESSION_NOT_FOUND', routerAnswer: 'NOT_FOUND' },
    ],
    [
      'removal of a RADIUS session accounting holds open, absent from the router',
      { method: 'HOTSPOT_ACTIVE_REMOVE', command: removal(0, 0), activeHolds: false },
      { state: 'SUCCEEDED', endedBy: 'ACTIVE_LIST', routerAnswer: 'NOT_FOUND' },
    ],
  ];
  for (const [name, evidence, verdict] of cases) {
    it(name, () => expect(kickVerdict({ ...base, ...evidence })).to.deep.equal(verdict));
  }
});

describe('qoe kick Disconnect-Request', () => {
  it('names the session by address, user and Acct-Session-Id, signed with the NAS secret', () => {
    const packet = disconnectRequest('s3cret', {
      username: 'tkt123',
      acctSessionId: '80f00001',
      framedIp: '10.5.50.11',
    });
    const decoded = radius.decode({ packet, secret: 's3cret' });
    expect(decoded.code).to.equal('Disconnect-Request');
    expect(decoded.attributes).to.deep.include({
      'User-Name': 'tkt123',
      'Acct-Session-Id': '80f00001',
      'Framed-IP-Address': '10.5.50.11',
    });
    // The Request Authenticator is that of an Accounting-Request: it holds only with the secret.
    expect(accountingAuthenticatorValid(packet, 's3cret')).to.equal(true);
    expect(accountingAuthenticatorValid(packet, 'other')).to.equal(false);
  });
});
