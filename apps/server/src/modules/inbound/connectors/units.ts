import { KG_PER_MASS_UNIT } from '@merma/schema';

/**
 * What one unit of a POS's unit of measure is in Merma's terms: a mass (`kg` per unit), a count
 * (`units` per unit: a dozen is 12) or a volume (`litres` per unit). A volume is weighed later,
 * with the product's `density_kg_per_l` (kg = litres × density), when the product is known: the
 * connector passes it on in litres (`unit: 'l'` of the standard format), and a product without a
 * density has its line refused with the reason to set it. Anything else (length, surface, time)
 * is a `problem`, said in words the sender can act on.
 */
export type Measure = { kind: 'mass'; kg: number } | { kind: 'count'; units: number } | { kind: 'volume'; litres: number };
export type UnitReading = { measure: Measure; problem?: undefined } | { measure?: undefined; problem: string };

const mass = (kg: number): UnitReading => ({ measure: { kind: 'mass', kg } });
const count = (units: number): UnitReading => ({ measure: { kind: 'count', units } });
const volume = (litres: number): UnitReading => ({ measure: { kind: 'volume', litres } });

/** A quantity in a measure, as the standard format takes it: kg, counted units, or litres. */
export function inStandard(quantity: number, measure: Measure): { quantity: number; unit: 'kg' | 'unit' | 'l' } {
  if (measure.kind === 'mass') return { quantity: quantity * measure.kg, unit: 'kg' };
  if (measure.kind === 'volume') return { quantity: quantity * measure.litres, unit: 'l' };
  return { quantity: quantity * measure.units, unit: 'unit' };
}

/** Litres per unit of the volumes both vendors use (US customary, imperial, metric). */
export const LITRES = {
  l: 1,
  ml: 0.001,
  cl: 0.01,
  m3: 1000,
  usFlOz: 0.0295735295625,
  imperialFlOz: 0.0284130625,
  usCup: 0.2365882365,
  usPint: 0.473176473,
  usQuart: 0.946352946,
  usGallon: 3.785411784,
  cubicInch: 0.016387064,
  cubicFoot: 28.316846592,
  cubicYard: 764.554857984,
} as const;

/**
 * Litres per unit of Square's `MeasurementUnitVolume` (every value of the enum in Square's
 * api.json). Square's `GENERIC_` units are US customary ones (Square documents them as "ounces",
 * "cups"…); a shot is read as 1.5 US fl oz (44.36 ml), the US bar measure.
 */
export const SQUARE_LITRES_PER_VOLUME_UNIT: Record<string, number> = {
  GENERIC_FLUID_OUNCE: LITRES.usFlOz,
  GENERIC_SHOT: 1.5 * LITRES.usFlOz,
  GENERIC_CUP: LITRES.usCup,
  GENERIC_PINT: LITRES.usPint,
  GENERIC_QUART: LITRES.usQuart,
  GENERIC_GALLON: LITRES.usGallon,
  IMPERIAL_CUBIC_INCH: LITRES.cubicInch,
  IMPERIAL_CUBIC_FOOT: LITRES.cubicFoot,
  IMPERIAL_CUBIC_YARD: LITRES.cubicYard,
  METRIC_MILLILITER: LITRES.ml,
  METRIC_LITER: LITRES.l,
};

/** kg per unit of Square's `MeasurementUnitWeight` (every value of the enum in Square's api.json). */
export const SQUARE_KG_PER_WEIGHT_UNIT: Record<string, number> = {
  IMPERIAL_WEIGHT_OUNCE: KG_PER_MASS_UNIT.oz,
  IMPERIAL_POUND: KG_PER_MASS_UNIT.lb,
  IMPERIAL_STONE: 14 * KG_PER_MASS_UNIT.lb,
  METRIC_MILLIGRAM: 0.000001,
  METRIC_GRAM: KG_PER_MASS_UNIT.g,
  METRIC_KILOGRAM: 1,
};

/**
 * A Square `MeasurementUnit` (a line item's `quantity_unit.measurement_unit`, an inventory
 * change's `measurement_unit.measurement_unit`): none, or `generic_unit: UNIT`, is a count; a
 * `weight_unit` a mass; a `volume_unit` a volume (weighed with the product's density); an area,
 * length, time or custom unit cannot be weighed or counted.
 */
export function squareMeasure(unit: Record<string, unknown> | undefined): UnitReading {
  if (!unit || Object.keys(unit).length === 0) return count(1);
  const weight = unit.weight_unit;
  if (typeof weight === 'string') {
    const kg = SQUARE_KG_PER_WEIGHT_UNIT[weight];
    return kg ? mass(kg) : { problem: `unknown weight_unit ${weight} (${Object.keys(SQUARE_KG_PER_WEIGHT_UNIT).join(', ')})` };
  }
  const vol = unit.volume_unit;
  if (typeof vol === 'string') {
    const litres = SQUARE_LITRES_PER_VOLUME_UNIT[vol];
    return litres ? volume(litres) : { problem: `unknown volume_unit ${vol} (${Object.keys(SQUARE_LITRES_PER_VOLUME_UNIT).join(', ')})` };
  }
  if (unit.generic_unit === 'UNIT') return count(1);
  const [kind, value] = Object.entries(unit).find(([k, v]) => k.endsWith('_unit') && v !== null && v !== undefined) ?? [
    'type',
    unit.type ?? 'none',
  ];
  const shown = typeof value === 'string' ? value : JSON.stringify(value).slice(0, 80);
  return {
    problem: `${kind} ${shown} is neither a weight (weight_unit), a volume (volume_unit) nor a count (generic_unit UNIT or no unit)`,
  };
}

/**
 * Odoo's units of measure by name, lower-cased: the names of `addons/uom/data/uom_data.xml` (Odoo
 * 13 to 19: `Unit(s)`/`Units`, `Dozen(s)`/`Dozens`, `kg`, `g`, `t`/`Ton`, `lb(s)`, `oz(s)`,
 * `Pack of 6`; the volumes `L`, `ml`, `m³`, `fl oz (US)`, `qt (US)`, `gal (US)`, `in³`, `ft³`)
 * and their Spanish names (`addons/uom/i18n/es.po`), plus common spellings. A bare `fl oz` is the
 * US one (Odoo's only fluid ounce); the imperial one is read when named so.
 */
const ODOO_UNIT_NAMES: Record<string, UnitReading> = {};
const name = (reading: UnitReading, ...names: string[]) => {
  for (const n of names) ODOO_UNIT_NAMES[n] = reading;
};
name(count(1), 'units', 'unit', 'unit(s)', 'unidades', 'unidad', 'unidad(es)', 'ud', 'uds', 'pcs', 'piece', 'pieces');
name(count(12), 'dozens', 'dozen', 'dozen(s)', 'docenas', 'docena');
name(count(6), 'pack of 6', 'paquete de 6');
name(mass(1), 'kg', 'kgs', 'kilogram', 'kilograms', 'kilogramo', 'kilogramos');
name(mass(0.001), 'g', 'gr', 'gram', 'grams', 'gramo', 'gramos');
name(mass(1000), 't', 'ton', 'tons', 'tonne', 'tonnes', 'tonelada', 'toneladas');
name(mass(KG_PER_MASS_UNIT.lb), 'lb', 'lbs', 'lb(s)', 'libra', 'libras');
name(mass(KG_PER_MASS_UNIT.oz), 'oz', 'oz(s)', 'onza', 'onzas');
name(volume(LITRES.l), 'l', 'liter', 'liters', 'litre', 'litres', 'liter(s)', 'litro', 'litros', 'lt', 'ltr');
name(volume(LITRES.ml), 'ml', 'milliliter', 'milliliters', 'millilitre', 'millilitres', 'mililitro', 'mililitros');
name(volume(LITRES.cl), 'cl', 'centiliter', 'centiliters', 'centilitre', 'centilitres', 'centilitro', 'centilitros');
name(volume(LITRES.m3), 'm³', 'm3', 'cubic meter', 'cubic metre', 'metro cúbico', 'metros cúbicos');
name(volume(LITRES.usFlOz), 'fl oz', 'fl oz (us)', 'fl. oz', 'fl. oz.', 'fl oz us', 'onza líquida', 'onzas líquidas');
name(volume(LITRES.imperialFlOz), 'fl oz (imperial)', 'fl oz (uk)', 'imperial fl oz', 'uk fl oz');
name(volume(LITRES.usQuart), 'qt', 'qt (us)', 'quart', 'quarts');
name(volume(LITRES.usGallon), 'gal', 'gal(s)', 'gal (us)', 'gallon', 'gallons', 'galón', 'galones');
name(volume(LITRES.cubicInch), 'in³', 'in3');
name(volume(LITRES.cubicFoot), 'ft³', 'ft3');

/** Odoo's other default units by name, to say which kind of unit was sent. */
const ODOO_OTHER_KINDS: Record<string, string> = {};
const kind = (k: string, ...names: string[]) => {
  for (const n of names) ODOO_OTHER_KINDS[n] = k;
};
kind('length', 'm', 'cm', 'mm', 'km', 'in', 'inch(es)', 'ft', 'foot(ft)', 'yd', 'mi', 'mile(s)');
kind('surface', 'm²', 'ft²');
kind('working time', 'hours', 'hour(s)', 'days', 'day(s)', 'minutes', 'horas', 'días', 'minutos');

/** Odoo's UoM categories (up to Odoo 18) whose units Merma can read, by their English and Spanish names. */
const ODOO_CATEGORIES: Record<string, Measure['kind']> = {
  weight: 'mass',
  peso: 'mass',
  unit: 'count',
  units: 'count',
  unidad: 'count',
  volume: 'volume',
  volumen: 'volume',
};

/** A unit by its name as Odoo shows it (in English or Spanish). */
export function odooMeasureByName(unitName: string): UnitReading {
  const key = unitName.trim().toLowerCase();
  const known = ODOO_UNIT_NAMES[key];
  if (known) return known;
  const other = ODOO_OTHER_KINDS[key];
  if (other)
    return {
      problem: `"${unitName}" is a ${other} unit: Merma weighs (Weight units, Volume units with the product's density) or counts (Unit units)`,
    };
  return {
    problem: `unknown unit of measure "${unitName}": use a unit of the Weight, Volume or Unit category, or add the related fields x_uom_category (product_uom_id.category_id.name) and x_uom_factor (product_uom_id.factor) to say what it is`,
  };
}

/**
 * A unit by its category and ratio (Odoo up to 18): `factor` is "1 × reference unit = factor ×
 * this unit" (`addons/uom/models/uom_uom.py`), and the references of the default categories are
 * kg (Weight), Units (Unit) and L (Volume) — so one of this unit is 1/factor kg, 1/factor units
 * or 1/factor litres.
 */
export function odooMeasureByCategory(category: string, factor: number): UnitReading {
  const kindOf = ODOO_CATEGORIES[category.trim().toLowerCase()];
  if (!kindOf)
    return { problem: `a unit of the ${category} category: Merma weighs (Weight, Volume with the product's density) or counts (Unit)` };
  if (!(factor > 0)) return { problem: `x_uom_factor must be the unit's positive ratio (product_uom_id.factor), got ${factor}` };
  return kindOf === 'mass' ? mass(1 / factor) : kindOf === 'volume' ? volume(1 / factor) : count(1 / factor);
}
