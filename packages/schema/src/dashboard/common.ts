import { z } from 'zod';
import { Uuid } from '../common.js';
import { MODES } from '../constants.js';
import { ROLES } from '../roles.js';

/** The pieces every area of the dashboard's shapes shares: a member's role, the establishment and
 * mode a call is about, and the answer of a call that only confirms. */

/** A member's role in an organisation, strongest first (the list and the table of what each may do: roles.ts). */
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** Calls about one establishment (of the session's organisation) and, where data has a mode, one mode. */
export const EstablishmentScope = z.strictObject({ establishment_id: Uuid });
export const ModeScope = z.strictObject({ establishment_id: Uuid, livemode: z.boolean() });

export const KeyMode = z.enum(MODES);
export type KeyMode = z.infer<typeof KeyMode>;

/** The answer of a call that only confirms it was done (sign out, remove a member…). */
export const OkResponse = z.object({ ok: z.literal(true) });
