import { expect } from 'chai';
import radius from 'radius';
import { ensureDictionaries } from '../../../controller/radius/dictionary.js';
import { allAttributes, ATTR, CODE, signReply } from '../../../controller/radius/packet-crypto.js';
import {
  encodeReply,
  grantAttributes,
  grantBytes,
  type ReplyCode,
} from '../../../controller/radius/reply-builder.js';

const SECRET = 's3cret-nas';
type Attribute = [string | number, ...unknown[]];

/** The reply as the codec encodes it whole (what the server sent before attributes were cached). */
function codecReply(code: ReplyCode, request: Buffer, secret: string, attributes: Attribute[]): Buffer {
  const proxyStates = allAttributes(request, ATTR.PROXY_STATE).map((v): Attribute => [
    ATTR.PROXY_STATE,
    Buffer.from(v),
  ]);
  const reply = radius.encode({
    code,
    secret,
    identifier: request[1]!,
    attributes: [['Message-Authenticator', Buffer.alloc(16)], ...attributes, ...proxyStates],
    add_message_authenticator: false,
  });
  const zeroForMac = code === 'Accounting-Response' && request[0] === CODE.ACCOUNTING_REQUEST;
  return signReply(reply, request.subarray(4, 20), secret, zeroForMac);
}

describe('RADIUS reply builder', () => {
  before(() => ensureDictionaries());

  const access = (attrs: [string, unknown][], identifier = 7) =>
    radius.encode({ code: 'Access-Request', secret: SECRET, identifier, attributes: attrs });

  it('builds byte for byte the reply the codec encodes, from cached attribute bytes', () => {
    const grants = [
      { rateLimit: '2M/2M', sessionTimeout: 3600, totalLimitBytes: null },
      { rateLimit: null, sessionTimeout: null, totalLimitBytes: 5 * 2 ** 32 + 9 },
      { rateLimit: '512k/1M', sessionTimeout: 59, totalLimitBytes: 10 },
    ];
    const requests = [
      access([['User-Name', 'u']]),
      access(
        [
          ['User-Name', 'u'],
          ['Proxy-State', Buffer.from('st1')],
          ['Proxy-State', Buffer.from('second')],
        ],
        200,
      ),
    ];
    for (const request of requests) {
      for (const grant of grants) {
        for (let round = 0; round < 2; round++) {
          const attrs = grantAttributes(grant, 300);
          const expected = codecReply('Access-Accept', request, SECRET, attrs);
          expect(encodeReply('Access-Accept', request, SECRET, attrs)).to.deep.equal(expected);
          expect(encodeReply('Access-Accept', request, SECRET, grantBytes(grant, 300))).to.deep.equal(
            expected,
          );
        }
      }
      const reject: Attribute[] = [['Reply-Message', 'This ticket is used up']];
      expect(encodeReply('Access-Reject', request, SECRET, reject)).to.deep.equal(
        codecReply('Access-Reject', request, SECRET, reject),
      );
    }
    const acct = radius.encode({
      code: 'Accounting-Request',
      secret: SECRET,
      identifier: 9,
      attributes: [
        ['Acct-Status-Type', 'Start'],
        ['Proxy-State', Buffer.from('p')],
      ],
    });
    expect(encodeReply('Accounting-Response', acct, SECRET, [])).to.deep.equal(
      codecReply('Accounting-Response', acct, SECRET, []),
    );
  });

  it('signs every reply with its own request authenticator', () => {
    const attrs = grantAttributes({ rateLimit: '2M/2M', sessionTimeout: 3600, totalLimitBytes: null }, 300);
    const a = access([['User-Name', 'u']]);
    const b = access([['User-Name', 'u']]);
    const ra = encodeReply('Access-Accept', a, SECRET, attrs);
    const rb = encodeReply('Access-Accept', b, SECRET, attrs);
    expect(radius.verify_response({ request: a, response: ra, secret: SECRET })).to.equal(true);
    expect(radius.verify_response({ request: b, response: rb, secret: SECRET })).to.equal(true);
    expect(radius.verify_response({ request: a, response: rb, secret: SECRET })).to.equal(false);
  });
});
