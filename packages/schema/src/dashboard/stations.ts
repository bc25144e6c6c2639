import { z } from 'zod';
import { Cause, Destination, Shift } from '../catalog.js';
import { FoodCategory, IsoDate, Timestamp, text, Uuid } from '../common.js';
import { WasteRecord } from '../records.js';
import { Session } from '../sessions.js';
import { EstablishmentScope, KeyMode, ModeScope } from './common.js';

/**
 * Kitchen stations (docs/decisions/0007-the-kitchen-station.md): the dashboard's devices and
 * pairings, and the station's own answers (`stations`).
 */

// The constants the station's page reads too live in station.ts, which imports no zod.
export {
  normalizePairingCode,
  PAIRING_CODE_ALPHABET,
  PAIRING_CODE_LENGTH,
  PAIRING_TTL_MINUTES,
  STATION_MAX_WEIGHT_KG,
  STATION_TOKEN_PATTERN,
  STATION_UNDO_SECONDS,
  stationSource,
} from '../station.js';

/** `pairing`: its code waits to be used; `expired`: the code was not used in time; `active`: paired; `revoked`. */
export const StationDeviceStatus = z.enum(['pairing', 'expired', 'active', 'revoked']);
export type StationDeviceStatus = z.infer<typeof StationDeviceStatus>;

export const StationDevice = z.object({
  id: Uuid,
  name: z.string(),
  mode: KeyMode,
  status: StationDeviceStatus,
  created_by: z.object({ id: Uuid, email: z.string(), name: z.string() }).nullable(),
  created_at: Timestamp,
  pairing_expires_at: Timestamp.nullable(),
  paired_at: Timestamp.nullable(),
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export type StationDevice = z.infer<typeof StationDevice>;

export const DashboardStartPairingInput = ModeScope.extend({ name: text(60).trim().min(1) });
export type DashboardStartPairingInput = z.input<typeof DashboardStartPairingInput>;

/** A new pairing: the code is shown this once (the server keeps its hash). */
export const StartedPairing = z.object({ device: StationDevice, code: z.string(), expires_at: Timestamp });
export type StartedPairing = z.infer<typeof StartedPairing>;

export const DashboardStationIdInput = ModeScope.extend({ id: Uuid });
export type DashboardStationIdInput = z.input<typeof DashboardStationIdInput>;

/** What a station is: its device, establishment and mode. */
export const StationIdentity = z.object({
  device: z.object({ id: Uuid, name: z.string() }),
  establishment: z.object({ id: Uuid, name: z.string(), timezone: z.string() }),
  mode: KeyMode,
});
export type StationIdentity = z.infer<typeof StationIdentity>;

/** The station's side of a pairing: the code it was given. */
export const RedeemPairingInput = z.strictObject({ code: z.string().max(40) });
export type RedeemPairingInput = z.input<typeof RedeemPairingInput>;

/** The device's token, shown this once; the station keeps it. */
export const RedeemedPairing = StationIdentity.extend({ token: z.string() });
export type RedeemedPairing = z.infer<typeof RedeemedPairing>;

/**
 * What a station shows before the first tap (`GET /station/setup`): the categories and causes its
 * kitchen uses most first, the destinations in the Ley 1/2025 hierarchy (the preferred first),
 * each with how many records of the last 90 days used it; the shifts and the one now on; the open
 * registration sessions; and today's total.
 */
/** The most containers an establishment names for the station's tare. */
export const MAX_TARE_PRESETS = 20;
/** The most products a station offers as a quick button. */
export const MAX_QUICK_PRODUCTS = 6;
/** The heaviest container a preset may weigh, in kg. */
export const MAX_TARE_PRESET_KG = 100;

/**
 * A container the kitchen weighs food in (a named bucket, a gastronorm tray), with its weight: the
 * station subtracts it from the scale's reading, so the register holds the food's net weight
 * (packaging is not food waste). Per establishment, not per mode: the buckets are physical.
 */
export const TarePreset = z.object({
  id: Uuid,
  name: z.string(),
  tare_kg: z.number().describe('the empty container, in kg'),
});
export type TarePreset = z.infer<typeof TarePreset>;

export const DashboardTarePresetsInput = EstablishmentScope;
export const DashboardAddTarePresetInput = EstablishmentScope.extend({
  name: text(60).trim().min(1),
  tare_kg: z.number().positive().max(MAX_TARE_PRESET_KG).multipleOf(0.001, 'to the gram at most'),
});
export type DashboardAddTarePresetInput = z.input<typeof DashboardAddTarePresetInput>;
export const DashboardDeleteTarePresetInput = EstablishmentScope.extend({ id: Uuid });

export const StationSetup = z.object({
  station: StationIdentity,
  categories: z.array(z.object({ food_category: FoodCategory, uses: z.number().int() })),
  causes: z.array(Cause.extend({ uses: z.number().int() })),
  destinations: z.array(Destination.extend({ uses: z.number().int() })),
  shifts: z.array(Shift),
  current_shift_id: Uuid.nullable(),
  sessions: z.array(Session),
  today: z.object({ day: IsoDate, records: z.number().int(), kg: z.number() }),
  best_by_category: z
    .array(z.object({ food_category: FoodCategory, destino_id: Uuid }))
    .describe("each food category's highest step this year: a lower destination asks why (Ley 1/2025 art. 5.2)"),
  tare_presets: z.array(TarePreset).describe("the establishment's containers, by name: a tap puts one's weight in the tare"),
  quick_products: z
    .array(z.object({ id: Uuid, name: z.string(), food_category: FoodCategory, unit_weight_kg: z.number(), uses: z.number().int() }))
    .describe(
      'the products this establishment and mode threw most in the last 90 days that have a unit weight (at most 6): a tap records them counted, units × unit weight',
    ),
});
export type StationSetup = z.infer<typeof StationSetup>;

/** The records a station shows (`GET /station/records`): today's that count, newest first, and today's total. */
export const StationRecent = z.object({
  records: z.array(WasteRecord),
  today: z.object({ day: IsoDate, records: z.number().int(), kg: z.number() }),
});
export type StationRecent = z.infer<typeof StationRecent>;
