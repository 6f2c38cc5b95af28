import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import radius from 'radius';
import { ensureDictionaries } from '../../../controller/radius/dictionary.js';
import {
  accountingAuthenticatorValid,
  chapMatches,
  checkMessageAuthenticator,
  decryptPap,
  findAttribute,
  papMatches,
  readPacket,
  signReply,
} from '../../../controller/radius/packet-crypto.js';
import { encodeReply, grantAttributes } from '../../../controller/radius/reply-builder.js';

const SECRET = 's3cret-nas';

describe('RADIUS packet crypto', () => {
  before(() => ensureDictionaries());

  const access = (attrs: [string, unknown][], ma = true) =>
    radius.encode({
      code: 'Access-Request',
      secret: SECRET,
      identifier: 7,
      attributes: attrs,
      add_message_authenticator: ma,
    });

  it('refuses malformed packets', () => {
    const ok = access([['User-Name', 'u']]);
    expect(readPacket(ok)).to.not.equal(null);
    expect(readPacket(ok.subarray(0, 19))).to.equal(null);
    const badLength = Buffer.from(ok);
    badLength.writeUInt16BE(ok.length + 1, 2);
    expect(readPacket(badLength)).to.equal(null);
    const badAttr = Buffer.from(ok);
    badAttr[21] = 1; // attribute length below 2
    expect(readPacket(badAttr)).to.equal(null);
    // Bytes past the length are padding and are cut off.
    expect(readPacket(Buffer.concat([ok, Buffer.alloc(5)]))!.packet.length).to.equal(ok.length);
  });

  it('decrypts PAP passwords of every length as the codec encrypts them', () => {
    for (const pw of ['a', 'abcd2345', 'x'.repeat(16), 'y'.repeat(17), 'z'.repeat(100)]) {
      const p = access([['User-Password', pw]]);
      const at = findAttribute(p, 2);
      expect(decryptPap(p.subarray(at, at - 2 + p[at - 1]!), SECRET, p.subarray(4, 20))!.toString()).to.equal(
        pw,
      );
      expect(
        decryptPap(p.subarray(at, at - 2 + p[at - 1]!), 'other', p.subarray(4, 20))?.toString(),
      ).to.not.equal(pw);
    }
  });

  it('checks Message-Authenticator with the right secret only', () => {
    const p = access([['User-Name', 'u']]);
    expect(checkMessageAuthenticator(p, SECRET)).to.equal('valid');
    expect(checkMessageAuthenticator(p, 'wrong')).to.equal('invalid');
    expect(checkMessageAuthenticator(access([['User-Name', 'u']], false), SECRET)).to.equal('absent');
    const tampered = Buffer.from(p);
    tampered[22] = tampered[22]! ^ 1; // the User-Name value
    expect(checkMessageAuthenticator(tampered, SECRET)).to.equal('invalid');
  });

  it('checks the Accounting-Request authenticator', () => {
    const p = radius.encode({
      code: 'Accounting-Request',
      secret: SECRET,
      attributes: [['Acct-Status-Type', 'Start']],
    });
    expect(accountingAuthenticatorValid(p, SECRET)).to.equal(true);
    expect(accountingAuthenticatorValid(p, 'wrong')).to.equal(false);
  });

  it('checks CHAP responses against the challenge', () => {
    const ident = randomBytes(1);
    const challenge = randomBytes(16);
    const response = createHash('md5').update(ident).update('pw').update(challenge).digest();
    const chap = Buffer.concat([ident, response]);
    expect(chapMatches(chap, challenge, 'pw')).to.equal(true);
    expect(chapMatches(chap, challenge, 'px')).to.equal(false);
    expect(chapMatches(chap, randomBytes(16), 'pw')).to.equal(false);
    expect(chapMatches(chap.subarray(0, 16), challenge, 'pw')).to.equal(false);
  });

  it('signs replies the codec verifies, Message-Authenticator first, Proxy-State echoed', () => {
    const request = access([
      ['User-Name', 'u'],
      ['Proxy-State', Buffer.from('st1')],
    ]);
    const grant = { rateLimit: '2M/2M', sessionTimeout: 600, totalLimitBytes: 5 * 2 ** 32 + 9 };
    const reply = encodeReply('Access-Accept', request, SECRET, grantAttributes(grant, 300));
    expect(radius.verify_response({ request, response: reply, secret: SECRET })).to.equal(true);
    expect(radius.verify_response({ request, response: Buffer.from(reply), secret: 'wrong' })).to.equal(
      false,
    );
    expect(reply[20]).to.equal(80);
    const decoded = radius.decode({ packet: reply, secret: SECRET });
    expect(decoded.attributes['Proxy-State'].toString()).to.equal('st1');
    expect(decoded.attributes['Session-Timeout']).to.equal(600);
    expect(decoded.attributes['Acct-Interim-Interval']).to.equal(300);
    expect(decoded.attributes['Vendor-Specific']).to.deep.equal({
      'Mikrotik-Rate-Limit': '2M/2M',
      'Mikrotik-Total-Limit': 9,
      'Mikrotik-Total-Limit-Gigawords': 5,
    });
  });

  it('matches PAP passwords in place as decryption then comparison would', () => {
    for (const pw of ['a', 'abcd2345', 'x'.repeat(16), 'y'.repeat(17), 'z'.repeat(100), 'çà€']) {
      const p = access([['User-Password', pw]]);
      const at = findAttribute(p, 2);
      const hidden = p.subarray(at, at - 2 + p[at - 1]!);
      expect(papMatches(hidden, SECRET, p.subarray(4, 20), pw)).to.equal(true);
      expect(papMatches(hidden, SECRET, p.subarray(4, 20), pw + 'x')).to.equal(false);
      expect(papMatches(hidden, SECRET, p.subarray(4, 20), pw.slice(1))).to.equal(false);
      expect(papMatches(hidden, 'other', p.subarray(4, 20), pw)).to.equal(false);
      expect(papMatches(hidden.subarray(0, 15), SECRET, p.subarray(4, 20), pw)).to.equal(false);
    }
  });

  it('signs and checks with a secret longer than an MD5 block (RFC 2104 hashes such keys)', () => {
    const long = 'k'.repeat(100);
    const p = radius.encode({
      code: 'Access-Request',
      secret: long,
      attributes: [['User-Name', 'u']],
      add_message_authenticator: true,
    });
    expect(checkMessageAuthenticator(p, long)).to.equal('valid');
    expect(checkMessageAuthenticator(p, 'k'.repeat(99))).to.equal('invalid');
    const reply = radius.encode({
      code: 'Access-Accept',
      secret: long,
      identifier: p[1],
      attributes: [['Message-Authenticator', Buffer.alloc(16)]],
      add_message_authenticator: false,
    });
    signReply(reply, p.subarray(4, 20), long);
    expect(radius.verify_response({ request: p, response: reply, secret: long })).to.equal(true);
    const decoded = radius.decode({ packet: reply, secret: long });
    expect(decoded.attributes['Message-Authenticator']).to.be.instanceOf(Buffer);
  });
});
