import { expect } from 'chai';
import {
  mergeUpdates,
  readAccounting,
  type SessionUpdate,
} from '../../../controller/radius/session-update.js';
import { RetransmitCache } from '../../../controller/radius/retransmit-cache.js';

const NAS = { nasId: 'nas-1', clientId: 'client-1', secret: 's' };
const NOW = new Date('2026-11-21T08:00:00.000Z');

const report = (attrs: Record<string, unknown>): SessionUpdate => {
  const r = readAccounting({ 'Acct-Session-Id': 'S1', 'User-Name': 'abcd2345', ...attrs }, NAS, NOW);
  if (r.kind !== 'session') throw new Error(`not a session report: ${JSON.stringify(r)}`);
  return r.update;
};

describe('accounting reports', () => {
  it('folds gigawords into the byte total and dates the start back by the session time', () => {
    const u = report({
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Input-Octets': 10,
      'Acct-Input-Gigawords': 1,
      'Acct-Output-Octets': 20,
      'Acct-Output-Gigawords': 2,
      'Acct-Session-Time': 120,
    });
    expect(u.totalBytes).to.equal(3 * 2 ** 32 + 30);
    expect(u.startedAt).to.equal('2026-11-21T07:58:00.000Z');
    expect(u.terminateCause).to.equal(null);
  });

  it('tells NAS restarts and unusable reports apart', () => {
    expect(readAccounting({ 'Acct-Status-Type': 'Accounting-On' }, NAS, NOW).kind).to.equal('nas-reset');
    expect(readAccounting({ 'Acct-Status-Type': 'Start' }, NAS, NOW).kind).to.equal('ignored');
    expect(
      readAccounting({ 'Acct-Status-Type': 'Failed', 'Acct-Session-Id': 'x', 'User-Name': 'u' }, NAS, NOW)
        .kind,
    ).to.equal('ignored');
  });

  it('merges reports of one session: larger counters win, a stop stays', () => {
    const start = report({ 'Acct-Status-Type': 'Start' });
    const interim = report({
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Input-Octets': 500,
      'Acct-Session-Time': 60,
    });
    const stop = report({
      'Acct-Status-Type': 'Stop',
      'Acct-Input-Octets': 900,
      'Acct-Session-Time': 90,
      'Acct-Terminate-Cause': 'User-Request',
    });
    const late = report({
      'Acct-Status-Type': 'Interim-Update',
      'Acct-Input-Octets': 500,
      'Acct-Session-Time': 60,
    });
    const merged = [interim, stop, late].reduce(mergeUpdates, start);
    expect(merged).to.include({
      status: 'Stop',
      totalBytes: 900,
      sessionTime: 90,
      terminateCause: 'User-Request',
    });
    expect(mergeUpdates(interim, interim)).to.include({
      totalBytes: 500,
      sessionTime: 60,
      status: 'Interim-Update',
    });
  });
});

describe('retransmit cache', () => {
  it('keeps a reply for one to two windows', () => {
    let now = 0;
    const cache = new RetransmitCache(1000, () => now);
    cache.set('a', Buffer.from('r'));
    now = 900;
    expect(cache.get('a')).to.deep.equal(Buffer.from('r'));
    now = 1500;
    expect(cache.get('a')).to.deep.equal(Buffer.from('r'));
    now = 2600;
    expect(cache.get('a')).to.equal(undefined);
  });

  it('keys a retransmit by service, source, identifier and authenticator', () => {
    const packet = (id: number, auth: number) => {
      const p = Buffer.alloc(20);
      p[1] = id;
      p.fill(auth, 4, 20);
      return p;
    };
    const base = RetransmitCache.key('auth', '192.0.2.1', 40000, packet(7, 1));
    expect(RetransmitCache.key('auth', '192.0.2.1', 40000, packet(7, 1))).to.equal(base);
    const others = [
      RetransmitCache.key('acct', '192.0.2.1', 40000, packet(7, 1)),
      RetransmitCache.key('auth', '192.0.2.10', 40000, packet(7, 1)),
      RetransmitCache.key('auth', '192.0.2.1', 40001, packet(7, 1)),
      RetransmitCache.key('auth', '192.0.2.1', 40000, packet(8, 1)),
      RetransmitCache.key('auth', '192.0.2.1', 40000, packet(7, 2)),
      RetransmitCache.key('auth', `agent:${'a'.repeat(300)}`, 40000, packet(7, 1)),
      RetransmitCache.key('auth', `agent:${'a'.repeat(299)}b`, 40000, packet(7, 1)),
    ];
    expect(new Set([base, ...others]).size).to.equal(others.length + 1);
  });
});
