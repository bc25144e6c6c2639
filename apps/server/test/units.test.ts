import { LITRES_PER_VOLUME_UNIT } from '@merma/schema';
import { describe, expect, it } from 'vitest';
import { lossKilograms } from '../src/modules/inbound/connectors/standard.js';
import {
  inStandard,
  odooMeasureByCategory,
  odooMeasureByName,
  SQUARE_LITRES_PER_VOLUME_UNIT,
  squareMeasure,
} from '../src/modules/inbound/connectors/units.js';

/**
 * The volume units of both vendors, read as litres per unit (the standard format then weighs them
 * with the product's density): every value of Square's `MeasurementUnitVolume` and Odoo's volume
 * names and Volume category.
 */
const close = (actual: number | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 12);

describe('volume units', () => {
  it("reads every value of Square's MeasurementUnitVolume (the enum of the API extract) as litres", async () => {
    const { readFileSync } = await import('node:fs');
    const extract = JSON.parse(readFileSync(new URL('./fixtures/square/square-api-extract.json', import.meta.url), 'utf8'));
    const schemas = extract.components?.schemas ?? extract.definitions ?? extract;
    const values: string[] = schemas.MeasurementUnitVolume.enum;
    expect(Object.keys(SQUARE_LITRES_PER_VOLUME_UNIT).sort()).toEqual([...values].sort());
    const expected: Record<string, number> = {
      GENERIC_FLUID_OUNCE: 0.0295735295625,
      GENERIC_SHOT: 0.04436029434375,
      GENERIC_CUP: 0.2365882365,
      GENERIC_PINT: 0.473176473,
      GENERIC_QUART: 0.946352946,
      GENERIC_GALLON: 3.785411784,
      IMPERIAL_CUBIC_INCH: 0.016387064,
      IMPERIAL_CUBIC_FOOT: 28.316846592,
      IMPERIAL_CUBIC_YARD: 764.554857984,
      METRIC_MILLILITER: 0.001,
      METRIC_LITER: 1,
    };
    for (const value of values) {
      const reading = squareMeasure({ volume_unit: value, type: 'TYPE_VOLUME' });
      expect(reading.measure?.kind, value).toBe('volume');
      close(reading.measure?.kind === 'volume' ? reading.measure.litres : undefined, expected[value] as number);
    }
    expect(squareMeasure({ volume_unit: 'GENERIC_LITER' }).problem).toMatch(/unknown volume_unit GENERIC_LITER/);
    // A weight and a count read as before.
    expect(squareMeasure({ weight_unit: 'METRIC_GRAM' }).measure).toEqual({ kind: 'mass', kg: 0.001 });
    expect(squareMeasure(undefined).measure).toEqual({ kind: 'count', units: 1 });
  });

  it("reads Odoo's volume units by name (English and Spanish) and by the Volume category, whose reference is the litre", () => {
    const cases: [string, number][] = [
      ['L', 1],
      ['Litros', 1],
      ['litre', 1],
      ['ml', 0.001],
      ['mililitros', 0.001],
      ['cl', 0.01],
      ['fl oz (US)', 0.0295735295625],
      ['fl oz', 0.0295735295625],
      ['fl oz (imperial)', 0.0284130625],
      ['gal (US)', 3.785411784],
      ['Galones', 3.785411784],
      ['qt (US)', 0.946352946],
      ['m³', 1000],
      ['in³', 0.016387064],
      ['ft³', 28.316846592],
    ];
    for (const [name, litres] of cases) {
      const reading = odooMeasureByName(name);
      expect(reading.measure?.kind, name).toBe('volume');
      close(reading.measure?.kind === 'volume' ? reading.measure.litres : undefined, litres);
    }
    // Odoo's Volume category: factor 1000 is the ml, 0.001 the m³ (1 L = factor × this unit).
    for (const [category, factor, litres] of [
      ['Volume', 1000, 0.001],
      ['Volumen', 1, 1],
      ['volume', 0.001, 1000],
    ] as const) {
      const reading = odooMeasureByCategory(category, factor);
      expect(reading.measure?.kind).toBe('volume');
      close(reading.measure?.kind === 'volume' ? reading.measure.litres : undefined, litres);
    }
    expect(odooMeasureByName('m').problem).toMatch(/"m" is a length unit/);
    expect(odooMeasureByCategory('Length / Distance', 1).problem).toMatch(/Length/);
  });

  it('passes a volume on in litres, and weighs a standard loss with the density (none without one)', () => {
    expect(inStandard(2, { kind: 'volume', litres: 0.5 })).toEqual({ quantity: 1, unit: 'l' });
    expect(inStandard(2, { kind: 'mass', kg: 0.5 })).toEqual({ quantity: 1, unit: 'kg' });
    expect(inStandard(2, { kind: 'count', units: 12 })).toEqual({ quantity: 24, unit: 'unit' });
    expect(LITRES_PER_VOLUME_UNIT).toEqual({ l: 1, ml: 0.001, cl: 0.01, fl_oz: 0.0295735295625 });
    const milk = { unitWeightKg: null, densityKgPerL: 1.03 };
    const loss = (quantity: number, unit: 'l' | 'ml' | 'cl' | 'fl_oz' | 'unit') =>
      ({ source: 'pos', product_ref: 'x', quantity, unit }) as Parameters<typeof lossKilograms>[0];
    close(lossKilograms(loss(2, 'l'), milk) as number, 2.06);
    close(lossKilograms(loss(500, 'ml'), milk) as number, 0.515);
    close(lossKilograms(loss(50, 'cl'), milk) as number, 0.515);
    close(lossKilograms(loss(32, 'fl_oz'), milk) as number, 32 * 0.0295735295625 * 1.03);
    // No density: no weight, even with a unit weight (a volume is not a count).
    expect(lossKilograms(loss(2, 'l'), { unitWeightKg: 1, densityKgPerL: null })).toBeNull();
  });
});

describe('weights and counts, and the units refused', () => {
  const kg = (reading: ReturnType<typeof squareMeasure>) => (reading.measure?.kind === 'mass' ? reading.measure.kg : undefined);

  it("reads Square's weights as kg, and no unit or the generic UNIT as one item", () => {
    close(kg(squareMeasure({ weight_unit: 'METRIC_KILOGRAM' })), 1);
    close(kg(squareMeasure({ weight_unit: 'METRIC_GRAM' })), 0.001);
    close(kg(squareMeasure({ weight_unit: 'METRIC_MILLIGRAM' })), 0.000001);
    close(kg(squareMeasure({ weight_unit: 'IMPERIAL_POUND' })), 0.45359237);
    close(kg(squareMeasure({ weight_unit: 'IMPERIAL_WEIGHT_OUNCE' })), 0.028349523125);
    close(kg(squareMeasure({ weight_unit: 'IMPERIAL_STONE' })), 6.35029318);
    expect(squareMeasure(undefined)).toEqual({ measure: { kind: 'count', units: 1 } });
    expect(squareMeasure({})).toEqual({ measure: { kind: 'count', units: 1 } });
    expect(squareMeasure({ generic_unit: 'UNIT' })).toEqual({ measure: { kind: 'count', units: 1 } });
    // A weight named beside a generic unit is the weight.
    expect(squareMeasure({ generic_unit: 'UNIT', weight_unit: 'METRIC_GRAM' })).toEqual({ measure: { kind: 'mass', kg: 0.001 } });
  });

  it('refuses a Square unit it cannot weigh or count, naming it and what it would take', () => {
    expect(squareMeasure({ weight_unit: 'METRIC_TONNE' }).problem).toBe(
      'unknown weight_unit METRIC_TONNE (IMPERIAL_WEIGHT_OUNCE, IMPERIAL_POUND, IMPERIAL_STONE, METRIC_MILLIGRAM, METRIC_GRAM, METRIC_KILOGRAM)',
    );
    expect(squareMeasure({ volume_unit: 'METRIC_BARREL' }).problem).toMatch(/^unknown volume_unit METRIC_BARREL \(GENERIC_FLUID_OUNCE, /);
    const neither = 'is neither a weight (weight_unit), a volume (volume_unit) nor a count (generic_unit UNIT or no unit)';
    expect(squareMeasure({ length_unit: 'METRIC_METER', area_unit: null }).problem).toBe(`length_unit METRIC_METER ${neither}`);
    expect(squareMeasure({ area_unit: null, time_unit: 'GENERIC_HOUR' }).problem).toBe(`time_unit GENERIC_HOUR ${neither}`);
    expect(squareMeasure({ custom_unit: { name: 'Bandeja', abbreviation: 'bdj' } }).problem).toBe(
      `custom_unit {"name":"Bandeja","abbreviation":"bdj"} ${neither}`,
    );
    expect(squareMeasure({ generic_unit: 'INVALID_GENERIC_UNIT' }).problem).toBe(`generic_unit INVALID_GENERIC_UNIT ${neither}`);
    expect(squareMeasure({ type: 'TYPE_CUSTOM', precision: 2 }).problem).toBe(`type TYPE_CUSTOM ${neither}`);
    expect(squareMeasure({ precision: 2 }).problem).toBe(`type none ${neither}`);
    // A unit key that holds nothing is not the unit.
    expect(squareMeasure({ length_unit: undefined, precision: 2 }).problem).toBe(`type none ${neither}`);
  });

  it("reads Odoo's weights and counts by name, trimmed and in any case, and by category and factor", () => {
    expect(odooMeasureByName(' KG ')).toEqual({ measure: { kind: 'mass', kg: 1 } });
    expect(odooMeasureByName('Gramos')).toEqual({ measure: { kind: 'mass', kg: 0.001 } });
    expect(odooMeasureByName('Dozens')).toEqual({ measure: { kind: 'count', units: 12 } });
    expect(odooMeasureByName('Unit(s)')).toEqual({ measure: { kind: 'count', units: 1 } });
    // "1 kg = factor × this unit": the gram's factor is 1000, a 6-pack's 1/6, the tonne's 0.001.
    close(kg(odooMeasureByCategory(' Weight ', 1000)), 0.001);
    close(kg(odooMeasureByCategory('Peso', 0.001)), 1000);
    expect(odooMeasureByCategory('Unit', 1 / 6).measure).toEqual({ kind: 'count', units: 6 });
    expect(odooMeasureByCategory('UNIDAD', 1).measure).toEqual({ kind: 'count', units: 1 });
  });

  it('refuses an Odoo unit of another kind, an unknown one, and a factor that is not a positive ratio', () => {
    expect(odooMeasureByName('Hours').problem).toBe(
      '"Hours" is a working time unit: Merma weighs (Weight units, Volume units with the product\'s density) or counts (Unit units)',
    );
    expect(odooMeasureByName('m²').problem).toMatch(/^"m²" is a surface unit/);
    expect(odooMeasureByName('Bandeja').problem).toMatch(
      /^unknown unit of measure "Bandeja": use a unit of the Weight, Volume or Unit category/,
    );
    expect(odooMeasureByCategory('Working Time', 1).problem).toBe(
      "a unit of the Working Time category: Merma weighs (Weight, Volume with the product's density) or counts (Unit)",
    );
    for (const factor of [0, -1, Number.NaN]) {
      expect(odooMeasureByCategory('Weight', factor)).toEqual({
        problem: `x_uom_factor must be the unit's positive ratio (product_uom_id.factor), got ${factor}`,
      });
    }
    // The smallest positive ratio is still one.
    expect(odooMeasureByCategory('Weight', Number.MIN_VALUE).measure?.kind).toBe('mass');
  });
});
