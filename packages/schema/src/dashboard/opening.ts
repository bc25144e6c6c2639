import type { z } from 'zod';
import { Uuid } from '../common.js';
import { CreateClosureInput, SetClosedWeekdaysInput } from '../opening.js';
import { ModeScope } from './common.js';

/** The opening calendar: closed weekdays and closures (`opening`). */

/** The opening calendar's closed weekdays (`PUT /api/v1/opening-calendar/weekdays`'s body) of the chosen establishment and mode. */
export const DashboardSetClosedWeekdaysInput = ModeScope.extend({ calendar: SetClosedWeekdaysInput });
export type DashboardSetClosedWeekdaysInput = z.input<typeof DashboardSetClosedWeekdaysInput>;

/** A new closure (`POST /api/v1/opening-calendar/closures`'s body) of the chosen establishment and mode. */
export const DashboardCreateClosureInput = ModeScope.extend({ closure: CreateClosureInput });
export type DashboardCreateClosureInput = z.input<typeof DashboardCreateClosureInput>;

export const DashboardClosureIdInput = ModeScope.extend({ id: Uuid });
export type DashboardClosureIdInput = z.input<typeof DashboardClosureIdInput>;
