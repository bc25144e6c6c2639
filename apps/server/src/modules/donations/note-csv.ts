import type { DonationNote } from '@merma/schema';
import { foodCategoryLabel } from '../catalog/labels.js';
import { csvBytes } from '../records/export.js';

/** The handover note's columns, with the Spanish headers a spreadsheet set to Spanish shows. */
const COLUMNS = [
  { key: 'position', header: 'Línea' },
  { key: 'description', header: 'Descripción' },
  { key: 'food_category', header: 'Categoría' },
  { key: 'lot', header: 'Lote' },
  { key: 'best_before', header: 'Consumo preferente' },
  { key: 'use_by', header: 'Caducidad' },
  { key: 'quantity', header: 'Cantidad' },
  { key: 'unit', header: 'Unidad' },
  { key: 'net_kg', header: 'Peso neto (kg)' },
  { key: 'storage', header: 'Conservación' },
  { key: 'allergens', header: 'Alérgenos' },
  { key: 'temperature_c', header: 'Temperatura (°C)' },
  { key: 'status', header: 'Estado' },
  { key: 'refusal_reason', header: 'Motivo del rechazo' },
  { key: 'donor', header: 'Donante' },
  { key: 'entity', header: 'Entidad' },
  { key: 'signed_at', header: 'Firmado (UTC)' },
  { key: 'sha256', header: 'SHA-256 del albarán (PDF)' },
] as const;

const STATUS_ES = { offered: 'Ofrecida', accepted: 'Aceptada', refused: 'Rechazada' } as const;
const STORAGE_ES = { ambient: 'Ambiente', chilled: 'Refrigerado', frozen: 'Congelado' } as const;
const UNIT_ES = { kg: 'kg', unit: 'unidades', l: 'litros' } as const;
/** Dates as a Spanish spreadsheet reads them: dd/mm/yyyy. */
const day = (iso: string | null) => (iso ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` : '');
const decimal = (n: number | null) => (n === null ? '' : String(n).replace('.', ','));

/**
 * A signed handover note as CSV for the entity's entry register (Ley 1/2025 asks the receiving
 * entity to keep one): a line per donated line, in the form a spreadsheet set to Spanish opens (`;`,
 * decimal comma, dd/mm/yyyy, a byte order mark), with the records export's protections
 * (records/export.ts: no cell is ever read as a formula).
 */
export async function donationNoteCsv(note: DonationNote): Promise<string> {
  const donor = `${note.donor.organization}${note.donor.cif ? ` (${note.donor.cif})` : ''} — ${note.donor.establishment}`;
  const rows = note.lines.map((l) => ({
    position: String(l.position),
    description: l.description,
    food_category: foodCategoryLabel(l.food_category, 'es'),
    lot: l.lot ?? '',
    best_before: day(l.best_before),
    use_by: day(l.use_by),
    quantity: decimal(l.quantity),
    unit: UNIT_ES[l.unit],
    net_kg: decimal(l.net_kg),
    storage: STORAGE_ES[l.storage] + (l.cooked ? ', cocinado' : ''),
    allergens: l.allergens.join(', '),
    temperature_c: decimal(l.temperature_c),
    status: STATUS_ES[l.status],
    refusal_reason: l.refusal_reason ?? '',
    donor,
    entity: `${note.entity.name} (${note.entity.nif})`,
    signed_at: note.signed?.signed_at ?? '',
    sha256: note.signed?.sha256 ?? '',
  }));
  return (await csvBytes('es', COLUMNS, rows)).toString('utf8');
}
