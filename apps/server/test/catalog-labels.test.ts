import { describe, expect, it } from 'vitest';
import {
  CAUSE_NAMES_EN,
  type CatalogNames,
  causeLabel,
  DESTINATION_NAMES_EN,
  destinationLabel,
  edibleLabel,
  foodCategoryLabel,
  hierarchyReasonLabel,
  measurementMethodLabel,
  wasteStageLabel,
} from '../src/modules/catalog/labels.js';

/**
 * The catalogue's names in each plan language (modules/catalog/labels.ts), as the prevention plan
 * and the records export read them: the code's own name in Spanish or English, an unknown code
 * read as itself (never `undefined` in a document), and the causes' and destinations' names from
 * the database's Spanish ones, with an old plan's stored name when the catalogue lost the row.
 */
const PAST_ITS_DATE = '38c24669-6e85-43c2-a75a-a6059295af65';
const names: CatalogNames = {
  causes: new Map([
    [PAST_ITS_DATE, 'Caducidad'],
    ['7d1c0000-0000-4000-8000-000000000001', 'Causa propia'],
  ]),
  destinations: new Map([
    ['donation', 'Donación para consumo humano'],
    ['own_code', 'Destino propio'],
  ]),
};

describe("the codes' names", () => {
  it('in Spanish and in English', () => {
    expect(foodCategoryLabel('fruit_veg', 'es')).toBe('Frutas y verduras');
    expect(foodCategoryLabel('fruit_veg', 'en')).toBe('Fruit and vegetables');
    expect(wasteStageLabel('post_service', 'es')).toBe('Post-servicio');
    expect(wasteStageLabel('post_service', 'en')).toBe('Post-service');
    expect(wasteStageLabel('none', 'es')).toBe('Sin etapa registrada');
    expect(wasteStageLabel('none', 'en')).toBe('No stage recorded');
    expect(hierarchyReasonLabel('no_taker', 'es')).toBe('Ninguna entidad o gestor lo recoge');
    expect(hierarchyReasonLabel('no_taker', 'en')).toBe('No entity or collector takes it');
    expect(measurementMethodLabel('write_off', 'es')).toBe('Baja en TPV/ERP');
    expect(measurementMethodLabel('write_off', 'en')).toBe('POS/ERP write-off');
    expect(edibleLabel('inedible', 'es')).toBe('No comestible');
    expect(edibleLabel('inedible', 'en')).toBe('Inedible');
  });

  it('an unknown code reads as itself, in either language', () => {
    for (const label of [foodCategoryLabel, wasteStageLabel, hierarchyReasonLabel, measurementMethodLabel, edibleLabel]) {
      expect(label('not_a_code', 'es')).toBe('not_a_code');
      expect(label('not_a_code', 'en')).toBe('not_a_code');
      // Not a property of every object either.
      expect(label('toString', 'en')).toBe('toString');
    }
  });
});

describe('causeLabel', () => {
  it("a record without a cause: the catalogue's words for none", () => {
    expect(causeLabel('none', 'es', names)).toBe('Sin causa registrada');
    expect(causeLabel('none', 'en', names)).toBe('No cause recorded');
    expect(causeLabel('none', 'en', names, 'Guardada')).toBe('No cause recorded');
  });

  it("a seeded cause: the catalogue's Spanish name, its English name here", () => {
    expect(causeLabel(PAST_ITS_DATE, 'es', names)).toBe('Caducidad');
    expect(causeLabel(PAST_ITS_DATE, 'en', names)).toBe('Past its date');
    expect(CAUSE_NAMES_EN[PAST_ITS_DATE]).toBe('Past its date');
    // The catalogue's name comes before a plan's stored one.
    expect(causeLabel(PAST_ITS_DATE, 'es', names, 'Nombre antiguo')).toBe('Caducidad');
  });

  it('a cause without an English name reads in Spanish in an English plan', () => {
    expect(causeLabel('7d1c0000-0000-4000-8000-000000000001', 'en', names)).toBe('Causa propia');
    expect(causeLabel('7d1c0000-0000-4000-8000-000000000001', 'es', names)).toBe('Causa propia');
  });

  it('a cause the catalogue no longer has: the stored name, else its id', () => {
    const gone = '7d1c0000-0000-4000-8000-0000000000ff';
    expect(causeLabel(gone, 'es', names, 'Nombre antiguo')).toBe('Nombre antiguo');
    expect(causeLabel(gone, 'en', names, 'Nombre antiguo')).toBe('Nombre antiguo');
    expect(causeLabel(gone, 'es', names)).toBe(gone);
    expect(causeLabel(gone, 'en', names)).toBe(gone);
    // A seeded cause missing from the names read keeps its English name.
    expect(causeLabel(PAST_ITS_DATE, 'en', { causes: new Map(), destinations: new Map() }, 'Caducada')).toBe('Past its date');
    expect(causeLabel(PAST_ITS_DATE, 'es', { causes: new Map(), destinations: new Map() }, 'Caducada')).toBe('Caducada');
  });
});

describe('destinationLabel', () => {
  it("the catalogue's Spanish name, its English name here", () => {
    expect(destinationLabel('donation', 'es', names)).toBe('Donación para consumo humano');
    expect(destinationLabel('donation', 'en', names)).toBe('Donation for human consumption');
    expect(DESTINATION_NAMES_EN.donation).toBe('Donation for human consumption');
    expect(destinationLabel('donation', 'es', names, 'Antiguo')).toBe('Donación para consumo humano');
  });

  it('without an English name, in Spanish; unknown to the catalogue, the stored name, else its code', () => {
    expect(destinationLabel('own_code', 'en', names)).toBe('Destino propio');
    expect(destinationLabel('gone', 'es', names, 'Antiguo')).toBe('Antiguo');
    expect(destinationLabel('gone', 'en', names, 'Antiguo')).toBe('Antiguo');
    expect(destinationLabel('gone', 'es', names)).toBe('gone');
    expect(destinationLabel('gone', 'en', names)).toBe('gone');
    expect(destinationLabel('landfill', 'en', names)).toBe('Disposal in landfill');
    expect(destinationLabel('landfill', 'es', names, 'Vertedero')).toBe('Vertedero');
  });
});
