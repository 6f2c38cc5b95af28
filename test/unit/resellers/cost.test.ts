import { expect } from 'chai';
import { batchCost, unitCost } from '../../../controller/modules/resellers/cost.js';
import { normaliseUsername } from '../../../controller/modules/tickets/reseller-name.js';

describe('reseller cost rule', () => {
  const cases: [number, number, number][] = [
    [500, 0, 500],
    [500, 10, 450],
    [500, 12.5, 438], // discount 62.5 rounds down to 62: the manager keeps the odd franc
    [1000, 33.33, 667],
    [300, 100, 0],
    [0, 20, 0],
    [99, 1, 99], // 0.99 franc of discount is no franc
  ];
  for (const [price, rate, expected] of cases) {
    it(`a ticket at ${price} XOF with ${rate}% commission costs ${expected}`, () => {
      expect(unitCost(price, rate)).to.equal(expected);
    });
  }

  it('multiplies the unit cost by the quantity', () => {
    expect(batchCost(500, 12.5, 10)).to.equal(4380);
  });

  const refused: [number, number][] = [
    [-1, 0],
    [10.5, 0],
    [500, -1],
    [500, 101],
    [500, Number.NaN],
  ];
  for (const [price, rate] of refused) {
    it(`refuses price ${price} with rate ${rate}`, () =>
      expect(() => unitCost(price, rate)).to.throw(RangeError));
  }
});

describe('reseller usernames', () => {
  const cases: [string, string][] = [
    ['Awa', 'awa'],
    [' Awa Diop ', 'awadiop'],
    ['MOUSSA\t2', 'moussa2'],
    ['fatou.ndiaye', 'fatou.ndiaye'],
  ];
  for (const [raw, expected] of cases)
    it(`${JSON.stringify(raw)} → ${expected}`, () => expect(normaliseUsername(raw)).to.equal(expected));
});
