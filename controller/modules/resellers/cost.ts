// What a reseller pays for a batch. The reseller's commission is a discount on the manager's
// price, rounded down per ticket so rounding never costs the manager a franc.

/** Unit cost in integer XOF of one ticket at `price` for a reseller with `commissionRate` percent. */
export function unitCost(price: number, commissionRate: number): number {
  if (!Number.isSafeInteger(price) || price < 0) throw new RangeError(`bad price ${price}`);
  if (!(commissionRate >= 0 && commissionRate <= 100))
    throw new RangeError(`bad commission rate ${commissionRate}`);
  // Work in hundredths of a percent so rates like 12.5 stay exact.
  const discount = Math.floor((price * Math.round(commissionRate * 100)) / 10_000);
  return price - discount;
}

export function batchCost(price: number, commissionRate: number, quantity: number): number {
  return unitCost(price, commissionRate) * quantity;
}
