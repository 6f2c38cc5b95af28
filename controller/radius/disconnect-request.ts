// A Disconnect-Request (RFC 5176) for one accounting session, signed with its NAS's secret. It
// names the session by every attribute RouterOS matches a hotspot host on: its address
// (Framed-IP-Address, without which the router cannot tell which host is meant), the user name and
// the Acct-Session-Id, all of which must match, so a request can never drop another host of the
// same user. The Request Authenticator is computed as for an Accounting-Request (the codec does it).
import { randomInt } from 'node:crypto';
import radius from 'radius';
import { ensureDictionaries } from './dictionary.js';

export interface DisconnectTarget {
  username: string;
  acctSessionId: string;
  framedIp: string;
}

/** The signed packet; the identifier is random (each request goes from its own socket). */
export function disconnectRequest(secret: string, target: DisconnectTarget): Buffer {
  ensureDictionaries();
  return radius.encode({
    code: 'Disconnect-Request',
    secret,
    identifier: randomInt(0, 256),
    attributes: [
      ['User-Name', target.username],
      ['Acct-Session-Id', target.acctSessionId],
      ['Framed-IP-Address', target.framedIp],
    ],
  });
}
