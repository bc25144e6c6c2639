/**
 * Kitchen stations (docs/decisions/0007-the-kitchen-station.md): tablets paired to one
 * establishment and mode, recording waste with a device token instead of a person's session. What
 * both the server and the station's page need, without zod, so the page stays small
 * (`@merma/schema/station`); the shapes of the station's routes are in dashboard.ts.
 */
export { EDIBLE_PARTS, MAX_WEIGHT_KG, WEIGHT_DECIMALS } from './constants.js';

export const STATION_TOKEN_PATTERN = /^stn_(live|test)_[0-9A-Za-z]{32}$/;
/** Crockford's base 32: no I, L, O or U, so a code read aloud or typed is not mistaken. */
export const PAIRING_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MINUTES = 10;

/**
 * A pairing code as typed: case, spaces and hyphens aside, and the letters Crockford's base 32
 * reads as digits (I and L as 1, O as 0). Null when it cannot be a code.
 */
export function normalizePairingCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  return code.length === PAIRING_CODE_LENGTH && [...code].every((c) => PAIRING_CODE_ALPHABET.includes(c)) ? code : null;
}

/**
 * How long after a station's record is stored the station may undo it (`POST
 * /station/records/{id}/undo`): long enough to notice a wrong tap, short enough that an undo is of
 * the record the cook just made. Later, the record is corrected from the dashboard.
 */
export const STATION_UNDO_SECONDS = 300;

/** The `source` of a station's records: `station:<device id>` (the API's are `api`, the dashboard's `dashboard`). */
export const stationSource = (deviceId: string) => `station:${deviceId}`;

/**
 * The heaviest record a station takes, in kg: at the bin, more is nearly always a slip of the
 * keypad (500 typed for 5.00). The station's keypad stops there and the server refuses more from a
 * station; a larger loss (a pallet, a cold-room failure) is recorded from the dashboard or the API,
 * whose limit is MAX_WEIGHT_KG.
 */
export const STATION_MAX_WEIGHT_KG = 500;
