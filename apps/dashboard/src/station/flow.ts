import { parseDecimal } from '../lib/decimal.ts';
import { EMPTY_WEIGHT, type TypedWeight } from './Keypad.tsx';

/** A record being made at the station: the choices tapped so far and the weight as typed. */
export type Flow = {
  category?: string;
  /** null: "no cause" chosen. */
  cause?: string | null;
  destination?: string;
  typed: TypedWeight;
  /** Optional details, given at the weight step ("More details"). */
  details?: Details;
  /**
   * The scale the weight was read from (its id, when the port tells it): the record is a direct
   * weighing. Typing on the keypad afterwards clears it — a typed weight's method is not known.
   */
  scale?: { id: string | null };
  /**
   * Why the food goes lower than its category's best step this year (a code of HIERARCHY_REASONS),
   * null when not asked or left for later; undefined while the question is pending.
   */
  reason?: string | null;
  /** The refused outbox item this flow corrects, if any. */
  correcting?: number;
  /**
   * A product tapped among the quick buttons (the setup's `quick_products`): the category is its,
   * and the keypad counts units, the weight being units × its unit weight (`counting`), unless the
   * weight is read from the scale.
   */
  product?: QuickProduct;
  /** The photo of the waste, if one was taken (optional, at the weight step). */
  photo?: AttachedPhoto;
};
/**
 * A record's photo: still on the tablet (`blob`, uploaded by the outbox before the record), or
 * already uploaded (`url`: a refused record's, being corrected, whose photo reached the server).
 */
export type AttachedPhoto = { blob: Blob } | { url: string };
export type QuickProduct = { id: string; name: string; food_category: string; unit_weight_kg: number };
/** Whether the keypad counts units of the flow's product (a product tapped, and no scale read). */
export const counting = (f: Flow): f is Flow & { product: QuickProduct } => f.product !== undefined && f.scale === undefined;
/** The weight of `units` of a product, to the gram. */
export const countedKg = (units: number, unitKg: number) => Math.round(units * unitKg * 1000) / 1000;
export const START: Flow = { typed: EMPTY_WEIGHT };
/**
 * `tare`: the container's weight as typed (the weight on the keypad is then the gross, and the
 * record's weight the net: packaging is not food waste); `edible`: whether it could have been eaten.
 */
export type Details = { waste_stage: string | null; product_name: string; notes: string; tare: string; edible: string | null };
export const NO_DETAILS: Details = { waste_stage: null, product_name: '', notes: '', tare: '', edible: null };
export const STAGES = ['receiving', 'storage', 'preparation', 'service', 'post_service'] as const;
export type Step = 'category' | 'cause' | 'destination' | 'reason' | 'weight';
export const stepOf = (f: Flow): Step =>
  f.category === undefined
    ? 'category'
    : f.cause === undefined
      ? 'cause'
      : f.destination === undefined
        ? 'destination'
        : f.reason === undefined
          ? 'reason'
          : 'weight';

/**
 * The higher destination this year's records of `category` reached, when `destination` is lower
 * than it (the station then asks why: Ley 1/2025 art. 5.2); null when it is not.
 */
export function higherStep(
  setup: {
    best_by_category: readonly { food_category: string; destino_id: string }[];
    destinations: readonly { id: string; orden: number }[];
  },
  category: string | undefined,
  destination: string,
): string | null {
  const best = setup.best_by_category.find((b) => b.food_category === category);
  const orden = (id: string) => setup.destinations.find((d) => d.id === id)?.orden;
  const chosen = orden(destination);
  const top = best && orden(best.destino_id);
  return best && chosen !== undefined && top !== undefined && chosen > top ? best.destino_id : null;
}

/** The reasons a cook may tap; "another reason", which wants words, is the dashboard's. */
export const STATION_REASONS = ['unfit_for_people', 'no_taker', 'too_little', 'legal_restriction', 'cost_or_logistics'] as const;

/**
 * The record's weight and tare from the keypad's (gross) weight and the typed tare, in kg to the
 * gram: without a tare, the weight as typed; a tare that is not a positive number, or that weighs
 * as much as the gross or more, is a problem (a message key of `station.details`).
 */
export function netWeight(
  gross: number,
  tare: string,
  language: string,
): { kg: number; tare_kg?: number } | { problem: 'tareInvalid' | 'tareTooHeavy' } {
  if (tare.trim() === '') return { kg: gross };
  const read = parseDecimal(tare, language);
  if (read.problem || read.value <= 0) return { problem: 'tareInvalid' };
  const tareKg = Math.round(read.value * 1000) / 1000;
  const kg = Math.round((gross - tareKg) * 1000) / 1000;
  return kg > 0 ? { kg, tare_kg: tareKg } : { problem: 'tareTooHeavy' };
}
