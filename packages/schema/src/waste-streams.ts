import { z } from 'zod';
import { WfdOperation } from './catalog.js';
import { Timestamp, text, Uuid } from './common.js';
import { MAX_WASTE_MANAGER_NAME_LENGTH } from './constants.js';
import { Envelope } from './envelope.js';

/**
 * Where each waste stream of an establishment goes and under which code: for every destination
 * that is waste (its `wfd_operation` is not `not_waste`: composting, energy recovery, incineration,
 * landfill, sewer), the European List of Waste code the stream is handed over under (Decision
 * 2014/955/EU; Spain's "código LER") and the authorised waste manager who takes it, with the
 * manager's NIMA (Spain's 10-digit environmental identification number of a site, Ley 7/2022).
 *
 * A stream is one destination of one establishment: each site contracts its own collection, and
 * each site is the producer an inspector visits. Donations, animal feed and food kept for people
 * are not waste (Delegated Decision (EU) 2019/1597): they have no LER code and no stream.
 *
 * Only the codes a food business hands food over under are accepted (chapter 02, food
 * preparation and processing; 16 03 06, off-specification organic products; chapter 20, kitchen
 * and canteen waste, edible oil and fat, mixed municipal and market waste); packaging (chapter 15)
 * is not food waste. Each with its words in Spanish (the Spanish list's) and English (the
 * Decision's).
 */
type Label = { es: string; en: string };

const UNSUITABLE: Label = {
  es: 'Materiales inadecuados para el consumo o la elaboración',
  en: 'Materials unsuitable for consumption or processing',
};

export const LER_CODES: Record<string, Label & { section: Label }> = {
  '02 01 02': {
    es: 'Residuos de tejidos de animales',
    en: 'Animal-tissue waste',
    section: { es: 'agricultura y producción primaria', en: 'agriculture and primary production' },
  },
  '02 01 03': {
    es: 'Residuos de tejidos de vegetales',
    en: 'Plant-tissue waste',
    section: { es: 'agricultura y producción primaria', en: 'agriculture and primary production' },
  },
  '02 02 02': {
    es: 'Residuos de tejidos de animales',
    en: 'Animal-tissue waste',
    section: { es: 'carne, pescado y otros alimentos de origen animal', en: 'meat, fish and other foods of animal origin' },
  },
  '02 02 03': {
    ...UNSUITABLE,
    section: { es: 'carne, pescado y otros alimentos de origen animal', en: 'meat, fish and other foods of animal origin' },
  },
  '02 03 04': {
    ...UNSUITABLE,
    section: {
      es: 'frutas, hortalizas, cereales, aceites comestibles, cacao, café, té, levadura',
      en: 'fruit, vegetables, cereals, edible oils, cocoa, coffee, tea, yeast',
    },
  },
  '02 05 01': { ...UNSUITABLE, section: { es: 'industria de productos lácteos', en: 'dairy products industry' } },
  '02 06 01': { ...UNSUITABLE, section: { es: 'panadería y pastelería', en: 'baking and confectionery industry' } },
  '02 07 04': {
    ...UNSUITABLE,
    section: { es: 'bebidas alcohólicas y no alcohólicas', en: 'alcoholic and non-alcoholic beverages' },
  },
  '16 03 06': {
    es: 'Residuos orgánicos distintos de los especificados en el código 16 03 05',
    en: 'Organic wastes other than those mentioned in 16 03 05',
    section: { es: 'lotes fuera de especificación y productos no utilizados', en: 'off-specification batches and unused products' },
  },
  '20 01 08': {
    es: 'Residuos biodegradables de cocinas y restaurantes',
    en: 'Biodegradable kitchen and canteen waste',
    section: { es: 'fracciones recogidas selectivamente', en: 'separately collected fractions' },
  },
  '20 01 25': {
    es: 'Aceites y grasas comestibles',
    en: 'Edible oil and fat',
    section: { es: 'fracciones recogidas selectivamente', en: 'separately collected fractions' },
  },
  '20 03 01': {
    es: 'Mezclas de residuos municipales',
    en: 'Mixed municipal waste',
    section: { es: 'otros residuos municipales', en: 'other municipal wastes' },
  },
  '20 03 02': {
    es: 'Residuos de mercados',
    en: 'Waste from markets',
    section: { es: 'otros residuos municipales', en: 'other municipal wastes' },
  },
};

/** `200108`, `20 01 08`, `20.01.08` or `20-01-08` as the list writes it: `20 01 08`. */
export function normalizeLer(code: string): string {
  const digits = code.trim().replace(/[\s.-]/g, '');
  return /^\d{6}$/.test(digits) ? `${digits.slice(0, 2)} ${digits.slice(2, 4)} ${digits.slice(4)}` : code;
}

export const LerCode = z
  .string()
  .max(20)
  .transform(normalizeLer)
  .refine((code) => code in LER_CODES, {
    message:
      'unknown LER code: give a code of the European List of Waste a food business hands food over under, such as 20 01 08 (kitchen and canteen waste) or 02 02 03 (meat and fish unsuitable for consumption)',
  })
  .describe('European List of Waste (LER/EWC) code, written "20 01 08" ("200108" is accepted), one a food business hands food over under');

/** A NIMA: Spain's environmental identification number of a waste site, 10 digits. */
export const Nima = z
  .string()
  .transform((s) => s.trim())
  .pipe(z.string().regex(/^\d{10}$/, 'a NIMA has 10 digits'))
  .describe("the waste manager's NIMA (número de identificación medioambiental, 10 digits)");

/** What an owner, an admin or a `catalog:write` key says of one stream; null clears the manager's fields. */
export const WasteStreamFields = {
  ler_code: LerCode,
  manager_name: text(MAX_WASTE_MANAGER_NAME_LENGTH)
    .transform((s) => s.trim())
    .nullable()
    .describe('the authorised waste manager who collects the stream; null while not known'),
  manager_nima: Nima.nullable(),
};

export const UpdateWasteStreamInput = z
  .strictObject({ destination_id: Uuid.describe('a destination of `GET /destinos` that is waste'), ...WasteStreamFields })
  .meta({ id: 'UpdateWasteStreamInput' });
export type UpdateWasteStreamInput = z.input<typeof UpdateWasteStreamInput>;

export const WasteStream = z
  .object({
    destination_id: Uuid,
    destination_code: z.string().describe("the destination's stable key, e.g. `composting`"),
    wfd_operation: WfdOperation,
    ler_code: z.string().nullable().describe('its LER code ("20 01 08"); null until given'),
    ler_label: z
      .object({ es: z.string(), en: z.string() })
      .nullable()
      .describe("the code's words in the list, with its section, in Spanish and English"),
    manager_name: z.string().nullable(),
    manager_nima: z.string().nullable(),
    updated_at: Timestamp.nullable().describe('when it was last set; null until given'),
  })
  .meta({ id: 'WasteStream' });
export type WasteStream = z.infer<typeof WasteStream>;

/** A LER code's words with its section, in both languages: "Materiales inadecuados… (panadería y pastelería)". */
export function lerLabel(code: string): Label | null {
  const entry = LER_CODES[code];
  return entry ? { es: `${entry.es} (${entry.section.es})`, en: `${entry.en} (${entry.section.en})` } : null;
}
export const WasteStreamResponse = Envelope(WasteStream);
export const ListWasteStreamsResponse = Envelope(z.array(WasteStream));
