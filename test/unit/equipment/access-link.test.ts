import { expect } from 'chai';
import {
  accessSession,
  signAccess,
  verifyAccess,
} from '../../../controller/modules/equipment/access-link.js';

const KEY = 'k'.repeat(48);
const DEVICE = '0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b';
const HOST = `${DEVICE}.devices.test`;
const NOW = 1_800_000_000;

describe('equipment signed device links', () => {
  const good = signAccess({ d: DEVICE, c: 'client-1', h: HOST, e: NOW + 300, k: 'link' }, KEY);
  const [payload, mac] = good.split('.') as [string, string];
  const flip = (s: string) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`;
  const cases: { name: string; token: string; host?: string; at?: number; ok: boolean }[] = [
    { name: 'valid on its host', token: good, ok: true },
    { name: 'host compared without case', token: good, host: HOST.toUpperCase(), ok: true },
    { name: 'valid until its last second', token: good, at: NOW + 299, ok: true },
    { name: 'expired at 300 s', token: good, at: NOW + 300, ok: false },
    { name: 'another host', token: good, host: `x${HOST}`, ok: false },
    { name: 'altered claims', token: `${flip(payload)}.${mac}`, ok: false },
    { name: 'altered MAC', token: `${payload}.${flip(mac)}`, ok: false },
    {
      name: 'another key',
      token: signAccess({ d: DEVICE, c: 'c', h: HOST, e: NOW + 300, k: 'link' }, 'other'),
      ok: false,
    },
    {
      name: 'a session cookie used as a link',
      token: signAccess({ d: DEVICE, c: 'client-1', h: HOST, e: NOW + 1800, k: 'session' }, KEY),
      ok: false,
    },
    { name: 'no MAC', token: payload, ok: false },
    { name: 'three parts', token: `${good}.x`, ok: false },
    { name: 'empty', token: '', ok: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const claims = verifyAccess(c.token, KEY, c.host ?? HOST, c.at ?? NOW, 'link');
      expect(claims !== undefined).to.equal(c.ok);
    });
  }

  it('issues a link on the device host, valid 300 s', () => {
    const s = accessSession(DEVICE, 'client-1', NOW, { domain: 'devices.test', scheme: 'https', key: KEY });
    expect(s.ttl_seconds).to.equal(300);
    expect(s.access_url).to.equal(`https://${HOST}${s.access_path}`);
    const st = s.access_path.slice('/?st='.length);
    expect(verifyAccess(st, KEY, HOST, NOW + 299, 'link')).to.deep.equal({
      d: DEVICE,
      c: 'client-1',
      h: HOST,
      e: NOW + 300,
      k: 'link',
    });
    // a link is not a session cookie
    expect(verifyAccess(st, KEY, HOST, NOW, 'session')).to.equal(undefined);
  });
});
