import type { EdiblePart, FoodCategory, HierarchyReason, MeasurementMethod, PlanLanguage, WasteStage } from '@merma/schema';

/**
 * The names of the codes the catalogue defines (food categories, waste stages, causes,
 * destinations), in each language a prevention plan is written in; the records export writes the
 * Spanish ones. They live with the catalogue, not with one of the modules that show them, so that
 * records and plan both read them here.
 *
 * Catalogue names: the `causes` and `destinations` tables hold one (Spanish) `nombre`, which stays
 * the Spanish name; their English names are kept here, keyed by what never changes — a
 * destination's `code` and a cause's id (causes have no code; their ids are fixed by the seed
 * migration). A catalogue row added without an English name here reads in Spanish in an English
 * plan, and the plan tests fail until it is added.
 */
type Words = Record<PlanLanguage, string>;

export const FOOD_CATEGORY_LABELS: Record<FoodCategory, Words> = {
  meat: { es: 'Carne', en: 'Meat' },
  fish: { es: 'Pescado', en: 'Fish' },
  fruit_veg: { es: 'Frutas y verduras', en: 'Fruit and vegetables' },
  dairy: { es: 'Lácteos', en: 'Dairy' },
  bakery: { es: 'Panadería y bollería', en: 'Bakery' },
  prepared_meals: { es: 'Platos preparados', en: 'Prepared meals' },
  cereals: { es: 'Cereales', en: 'Cereals' },
  beverages: { es: 'Bebidas', en: 'Drinks' },
  others: { es: 'Otros', en: 'Other' },
};

/** `none`: records that name no stage. */
export const WASTE_STAGE_LABELS: Record<WasteStage | 'none', Words> = {
  receiving: { es: 'Recepción', en: 'Receiving' },
  storage: { es: 'Almacenamiento', en: 'Storage' },
  preparation: { es: 'Preparación', en: 'Preparation' },
  service: { es: 'Servicio', en: 'Service' },
  post_service: { es: 'Post-servicio', en: 'Post-service' },
  none: { es: 'Sin etapa registrada', en: 'No stage recorded' },
};

export const NO_CAUSE_LABEL: Words = { es: 'Sin causa registrada', en: 'No cause recorded' };
export const NO_SHIFT_LABEL: Words = { es: 'Sin turno', en: 'No shift' };

/** English names of the seeded causes, by id (the Spanish name is the catalogue's `nombre`). */
export const CAUSE_NAMES_EN: Record<string, string> = {
  '38c24669-6e85-43c2-a75a-a6059295af65': 'Past its date',
  'c6bd16d6-7ba3-41e0-9910-21c6732f07cc': 'Spoilage or poor condition',
  '4b3a4a84-4d2d-41ea-a260-5a775cff02aa': 'Overproduction',
  '810cbdc3-7e9c-4e26-960e-a21784bc5b2e': 'Plate leftovers',
  '4b572cbf-dab0-420b-804f-4c0964ba9129': 'Damage in transport or handling',
  '49bf08df-3a6a-4399-b449-4c6f1dbb27cb': 'Preparation error',
  '744272bd-33e5-414f-a904-2e9bca4923f9': 'Cold-chain break',
  '4f7ce62e-f26a-4b91-9898-05edc25dcd6b': 'Quality or cosmetic defect',
  'd3762eeb-058b-40d3-830c-04a9b8ab86da': 'Customer return',
  '3c726954-f608-4df6-88ec-a231ab2830c6': 'Other causes',
  '1ba04913-edd8-46b2-b05b-569f6bbc5150': 'Unclassified (retired)',
};

/** English names of the destinations, by code (the Spanish name is the catalogue's `nombre`). */
export const DESTINATION_NAMES_EN: Record<string, string> = {
  human_consumption: 'Processing for human consumption',
  donation: 'Donation for human consumption',
  animal_feed: 'Animal feed and feed manufacturing',
  industrial_byproducts: 'By-products for other industries',
  composting: 'Composting or digestate',
  energy_recovery: 'Energy recovery (biogas)',
  landfill: 'Disposal in landfill',
};

/** A food category's name; an unknown code (never stored by this version) reads as itself. */
export const foodCategoryLabel = (code: string, lang: PlanLanguage) => FOOD_CATEGORY_LABELS[code as FoodCategory]?.[lang] ?? code;

export const wasteStageLabel = (code: string, lang: PlanLanguage) => WASTE_STAGE_LABELS[code as WasteStage]?.[lang] ?? code;

const MEASUREMENT_METHOD_LABELS: Record<MeasurementMethod, Record<PlanLanguage, string>> = {
  direct_weighing: { es: 'Pesaje directo', en: 'Direct weighing' },
  counting: { es: 'Recuento × peso unitario', en: 'Counting × unit weight' },
  write_off: { es: 'Baja en TPV/ERP', en: 'POS/ERP write-off' },
  estimate: { es: 'Estimación', en: 'Estimate' },
  composition_analysis: { es: 'Análisis de composición', en: 'Composition analysis' },
};
const EDIBLE_LABELS: Record<EdiblePart, Record<PlanLanguage, string>> = {
  edible: { es: 'Comestible', en: 'Edible' },
  inedible: { es: 'No comestible', en: 'Inedible' },
  mixed: { es: 'Mixto', en: 'Mixed' },
};
const HIERARCHY_REASON_LABELS: Record<HierarchyReason, Record<PlanLanguage, string>> = {
  unfit_for_people: { es: 'No apto para consumo humano', en: 'Not fit for people' },
  no_taker: { es: 'Ninguna entidad o gestor lo recoge', en: 'No entity or collector takes it' },
  too_little: { es: 'Cantidad demasiado pequeña para recogerla', en: 'Too little to be collected' },
  legal_restriction: { es: 'Lo impide una norma', en: 'A rule forbids it' },
  cost_or_logistics: { es: 'Coste o logística desproporcionados', en: 'Disproportionate cost or logistics' },
  other: { es: 'Otro motivo', en: 'Another reason' },
};
export const hierarchyReasonLabel = (code: string, lang: PlanLanguage) => HIERARCHY_REASON_LABELS[code as HierarchyReason]?.[lang] ?? code;
export const measurementMethodLabel = (code: string, lang: PlanLanguage) =>
  MEASUREMENT_METHOD_LABELS[code as MeasurementMethod]?.[lang] ?? code;
export const edibleLabel = (code: string, lang: PlanLanguage) => EDIBLE_LABELS[code as EdiblePart]?.[lang] ?? code;

/** The catalogues' Spanish names, as the database holds them today. */
export type CatalogNames = { causes: Map<string, string>; destinations: Map<string, string> };

/** A cause's name; `fallback` (an old plan's stored name) when the catalogue no longer has it. */
export function causeLabel(id: string, lang: PlanLanguage, names: CatalogNames, fallback?: string): string {
  if (id === 'none') return NO_CAUSE_LABEL[lang];
  const spanish = names.causes.get(id) ?? fallback ?? id;
  return lang === 'en' ? (CAUSE_NAMES_EN[id] ?? spanish) : spanish;
}

export function destinationLabel(code: string, lang: PlanLanguage, names: CatalogNames, fallback?: string): string {
  const spanish = names.destinations.get(code) ?? fallback ?? code;
  return lang === 'en' ? (DESTINATION_NAMES_EN[code] ?? spanish) : spanish;
}
