import { z } from 'zod';
import { CreateShiftInput, Shift } from '../catalog.js';
import { Uuid } from '../common.js';
import { ModeScope } from './common.js';

/** Shifts as the dashboard makes, lists, archives and restores them (`shifts`). */

/** A new shift (`POST /api/v1/shifts`'s body) of the chosen establishment and mode. */
export const DashboardCreateShiftInput = ModeScope.extend({ shift: CreateShiftInput });
export type DashboardCreateShiftInput = z.input<typeof DashboardCreateShiftInput>;

/**
 * A shift as the dashboard lists it: archived shifts too (`archived`), so the names of the records
 * and sessions that keep pointing at them still show. `GET /api/v1/shifts` lists the active ones.
 */
export const DashboardShift = Shift.extend({ archived: z.boolean() });
export type DashboardShift = z.infer<typeof DashboardShift>;

/** A shift's new name and hours (the whole shift, as the create form sends it). */
export const DashboardUpdateShiftInput = ModeScope.extend({ id: Uuid, shift: CreateShiftInput });
export type DashboardUpdateShiftInput = z.input<typeof DashboardUpdateShiftInput>;

/** Archive (`archived: true`) or restore a shift. */
export const DashboardArchiveShiftInput = ModeScope.extend({ id: Uuid, archived: z.boolean() });
export type DashboardArchiveShiftInput = z.input<typeof DashboardArchiveShiftInput>;

export const DashboardShiftIdInput = ModeScope.extend({ id: Uuid });
export type DashboardShiftIdInput = z.input<typeof DashboardShiftIdInput>;
