import { expect } from 'chai';
import { MESSAGE_SCHEMAS, normaliseEnrolCode } from '../../../protocol/index.js';
import { AGENT } from './fixtures.js';

describe('protocol normaliseEnrolCode', () => {
  const cases: Array<[string, string]> = [
    ['ABCD2345', 'ABCD2345'],
    ['abcd2345', 'ABCD2345'],
    ['abcd-2345', 'ABCD2345'],
    [' ABCD 2345 ', 'ABCD2345'],
    ['ab-cd\t23 45\n', 'ABCD2345'],
    ['ABCD\u20132345', 'ABCD2345'], // en dash from a word processor
    ['ABCD\u00a02345', 'ABCD2345'], // no-break space from a web page
    ['\uff21\uff22\uff23\uff24-2345', 'ABCD2345'], // full-width letters
    ['', ''],
  ];
  for (const [input, expected] of cases) {
    it(`normalises ${JSON.stringify(input)} to ${JSON.stringify(expected)}`, () =>
      expect(normaliseEnrolCode(input)).to.equal(expected));
  }

  // Normalising does not judge: what is left that is not [A-Z0-9] is refused by the enrol schema.
  const stillRefused = ['ABCD_2345', 'ABCD.2345', 'AB'];
  for (const input of stillRefused) {
    it(`leaves ${JSON.stringify(input)} for the enrol schema to refuse`, () => {
      const body = { code: normaliseEnrolCode(input), agent_key: AGENT.publicKey, agent_version: '0.1.0' };
      expect(MESSAGE_SCHEMAS.enrol.safeParse(body).success).to.equal(false);
    });
  }
});
