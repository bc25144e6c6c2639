import { z } from 'zod';
import { Uuid } from '../common.js';
import { EsrsYear, FloorArea, NaceCode, ReductionBaseline } from '../compliance.js';
import { PlanLanguage } from '../plan.js';
import { CreateTrainingSessionFields, MeasureId, UpdatePlanMeasureFields } from '../plan-follow-up.js';
import { WasteStreamFields } from '../waste-streams.js';
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

/** The plan's measures as they are followed up, in the page's language. */
export const DashboardPlanMeasuresInput = ModeScope.extend({ lang: PlanLanguage });
export type DashboardPlanMeasuresInput = z.input<typeof DashboardPlanMeasuresInput>;

/** One measure's owner, due date, status and note: a field left out is kept, null clears it. */
export const DashboardUpdatePlanMeasureInput = ModeScope.extend({ measure_id: MeasureId, lang: PlanLanguage, ...UpdatePlanMeasureFields });
export type DashboardUpdatePlanMeasureInput = z.input<typeof DashboardUpdatePlanMeasureInput>;

/** A year's training sessions of the chosen establishment and mode; the current year by default. */
export const DashboardTrainingSessionsInput = ModeScope.extend({ year: EsrsYear.optional() });
export type DashboardTrainingSessionsInput = z.input<typeof DashboardTrainingSessionsInput>;

/** A training session held, recorded. */
export const DashboardCreateTrainingSessionInput = ModeScope.extend(CreateTrainingSessionFields);
export type DashboardCreateTrainingSessionInput = z.input<typeof DashboardCreateTrainingSessionInput>;

/** A training session recorded by mistake, deleted. */
export const DashboardDeleteTrainingSessionInput = ModeScope.extend({ id: Uuid });
export type DashboardDeleteTrainingSessionInput = z.input<typeof DashboardDeleteTrainingSessionInput>;

/** A year's food waste against a baseline, of the chosen establishment and mode. */
export const DashboardReductionInput = ModeScope.extend({ year: EsrsYear.optional(), baseline: ReductionBaseline });
export type DashboardReductionInput = z.input<typeof DashboardReductionInput>;

/** The chosen establishment's waste streams (not per mode: a fact of the establishment). */
export const DashboardWasteStreamsInput = EstablishmentScope;
export type DashboardWasteStreamsInput = z.input<typeof DashboardWasteStreamsInput>;

/** One stream's LER code and manager, sent whole. */
export const DashboardSetWasteStreamInput = EstablishmentScope.extend({ destination_id: Uuid, ...WasteStreamFields });
export type DashboardSetWasteStreamInput = z.input<typeof DashboardSetWasteStreamInput>;

/** One stream's code and manager, forgotten. */
export const DashboardRemoveWasteStreamInput = EstablishmentScope.extend({ destination_id: Uuid });
export type DashboardRemoveWasteStreamInput = z.input<typeof DashboardRemoveWasteStreamInput>;

/** A year's food waste of every establishment of the organisation, by stage, against their baselines. */
export const DashboardOrganizationFiguresInput = z.strictObject({
  livemode: z.boolean(),
  year: EsrsYear.optional(),
  baseline: ReductionBaseline,
});
export type DashboardOrganizationFiguresInput = z.input<typeof DashboardOrganizationFiguresInput>;
