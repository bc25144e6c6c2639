/**
 * Exact money and weights for the tax pack (tax.ts): euros become integer cents and kilograms
 * integer grams before anything is added, so no sum drifts the way binary fractions do
 * (0.1 + 0.2 ≠ 0.3; Math.round(1.005 * 100) is 100).
 *
 * Rounding, written once here: to the nearest cent, a half cent upwards — the rule of Ley 46/1998
 * (introducción del euro) art. 11.Uno, which Spanish books and returns follow. Amounts are rounded
 * where the law computes them (a line's value, an entity's deduction for a year), never summed from
 * figures rounded earlier (art. 11.Dos: intermediate roundings must not change the final amount).
 */

/** A plain decimal as PostgreSQL's `numeric::text` writes it: `12.34`, `0.005`, `7`. */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * `value` (a decimal string, or a number) as an integer count of 10^-`places` units, rounded to the
 * nearest unit with a half upwards. Negative or unreadable values are refused: the register stores
 * none, so one would be a bug upstream.
 */
function toScaled(value: string | number, places: number, what: string): number {
  // A number is read through its decimal expansion, not multiplied: 1.005 * 100 is 100.49999….
  const text = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(places + 6) : String(value)) : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`${what} must be a non-negative decimal, not ${JSON.stringify(value)}`);
  const [, whole, fraction = ''] = m as unknown as [string, string, string | undefined];
  const kept = (fraction + '0'.repeat(places)).slice(0, places);
  const next = fraction.charAt(places);
  const scaled = Number(whole) * 10 ** places + Number(kept || '0') + (next !== '' && next >= '5' ? 1 : 0);
  if (!Number.isSafeInteger(scaled)) throw new RangeError(`${what} ${JSON.stringify(value)} is too large`);
  return scaled;
}

/** Euros (`"12.34"`, `12.345`) as integer cents, half a cent upwards. */
export const eurosToCents = (euros: string | number): number => toScaled(euros, 2, 'an amount in euros');

/** Kilograms (`"3.250"`) as integer grams, half a gram upwards. */
export const kgToGrams = (kg: string | number): number => toScaled(kg, 3, 'a weight in kg');

/** Integer cents as euros written with two decimals: `123456` → `"1234.56"`. */
export function centsToEuros(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** ⌊n / d⌋ for non-negative safe integers, exact whatever the floating-point quotient. */
function floorDiv(n: number, d: number): number {
  let q = Math.floor(n / d);
  if (q * d > n) q -= 1;
  else if ((q + 1) * d <= n) q += 1;
  return q;
}

function checkCents(cents: number): void {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`expected non-negative integer cents, not ${cents}`);
}

/** `pct` % of `cents`, to the nearest cent, half a cent upwards (40 % of 0.05 € is 0.02 €; 50 % of 0.05 € is 0.03 €). */
export function percentOf(cents: number, pct: number): number {
  checkCents(cents);
  return floorDiv(cents * pct + 50, 100);
}

/** `pct` % of `cents` rounded down: for a ceiling, which rounding must never raise. */
export function percentFloor(cents: number, pct: number): number {
  checkCents(cents);
  return floorDiv(cents * pct, 100);
}

/**
 * Splits `total` cents across `weights` in proportion, as integers that add up to `total` exactly:
 * each gets the floor of its share and the cents left go to the largest remainders (ties to the
 * earlier weight). All weights 0: nothing to split by, so everything is 0 (and `total` must be 0).
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  checkCents(total);
  weights.forEach(checkCents);
  const sum = weights.reduce((a, w) => a + w, 0);
  if (sum === 0) {
    if (total !== 0) throw new RangeError(`cannot split ${total} cents by weights that are all 0`);
    return weights.map(() => 0);
  }
  // BigInt: total × weight may pass 2^53 (a year of cents times a year of cents).
  const T = BigInt(total);
  const S = BigInt(sum);
  const shares = weights.map((w, index) => {
    const exact = T * BigInt(w);
    return { index, floor: exact / S, remainder: exact % S };
  });
  let left = total - shares.reduce((a, s) => a + Number(s.floor), 0);
  const byRemainder = [...shares].sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  const out = shares.map((s) => Number(s.floor));
  for (const s of byRemainder) {
    if (left === 0) break;
    out[s.index] = (out[s.index] as number) + 1;
    left -= 1;
  }
  return out;
}
