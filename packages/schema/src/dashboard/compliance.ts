import type { z } from 'zod';
import { EsrsYear, FloorArea, NaceCode } from '../compliance.js';
import { PlanLanguage } from '../plan.js';
import { EstablishmentScope, ModeScope } from './common.js';

/** The Prevention plan page's "does the law oblige you?" and ESRS E5-5 cards (`compliance`). */

/** "Does the law oblige you?" for the chosen establishment, written in the page's language. */
export const DashboardObligationsInput = EstablishmentScope.extend({ lang: PlanLanguage });
export type DashboardObligationsInput = z.input<typeof DashboardObligationsInput>;

/** The establishment's activity and floor area, both given (null clears), as the owner's form sends them. */
export const DashboardUpdateEstablishmentInput = EstablishmentScope.extend({
  nace_code: NaceCode.nullable(),
  floor_area_m2: FloorArea.nullable(),
});
export type DashboardUpdateEstablishmentInput = z.input<typeof DashboardUpdateEstablishmentInput>;

/** A year's waste in ESRS E5-5 terms of the chosen establishment and mode; the current year by default. */
export const DashboardEsrsE5Input = ModeScope.extend({ year: EsrsYear.optional() });
export type DashboardEsrsE5Input = z.input<typeof DashboardEsrsE5Input>;

/** A year's order of priorities in writing, of the chosen establishment and mode; the current year by default. */
export const DashboardHierarchyInput = ModeScope.extend({ year: EsrsYear.optional() });
export type DashboardHierarchyInput = z.input<typeof DashboardHierarchyInput>;
