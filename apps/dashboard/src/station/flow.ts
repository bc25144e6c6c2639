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
  /** The refused outbox item this flow corrects, if any. */
  correcting?: number;
};
export const START: Flow = { typed: EMPTY_WEIGHT };
export type Details = { waste_stage: string | null; product_name: string; notes: string };
export const NO_DETAILS: Details = { waste_stage: null, product_name: '', notes: '' };
export const STAGES = ['receiving', 'storage', 'preparation', 'service', 'post_service'] as const;
export type Step = 'category' | 'cause' | 'destination' | 'weight';
export const stepOf = (f: Flow): Step =>
  f.category === undefined ? 'category' : f.cause === undefined ? 'cause' : f.destination === undefined ? 'destination' : 'weight';
