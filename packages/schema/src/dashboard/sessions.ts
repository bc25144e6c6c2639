import type { z } from 'zod';
import { Uuid } from '../common.js';
import { ListSessionsQuery } from '../sessions.js';
import { ModeScope } from './common.js';

/** Registration sessions as the dashboard lists them (`sessions`). */

export const DashboardSessionIdInput = ModeScope.extend({ id: Uuid });
export type DashboardSessionIdInput = z.input<typeof DashboardSessionIdInput>;

export const DashboardSessionsInput = ListSessionsQuery.extend(ModeScope.shape);
export type DashboardSessionsInput = z.input<typeof DashboardSessionsInput>;
