import type { DonationNote } from '@merma/schema';
import { renderPdf } from '../../pdf/document.js';
import { foodCategoryLabel } from '../catalog/labels.js';

/**
 * The signed handover note (albarán de entrega) as a PDF: who gives, who receives, each line with
 * its lot, dates, quantity, net weight, conservation, allergens and temperature, the entity's answer
 * per line (a refusal with its reason), and the signature — the signer's name and identity document,
 * the drawn image or the typed name, the time and the address it was sent from.
 *
 * In Spanish: the note is a Spanish legal document, kept by both parties for their registers
 * (Ley 1/2025); the signing page shows the same content in Spanish or English. Rendered through
 * pdf/document.ts, dated at the signature, so the same signature gives the same file. The caller
 * stores the bytes and their SHA-256.
 */

const STATUS_ES = { offered: 'Ofrecida', accepted: 'Aceptada', refused: 'Rechazada' } as const;
const STORAGE_ES = { ambient: 'ambiente', chilled: 'refrigerado', frozen: 'congelado' } as const;
const UNIT_ES = { kg: 'kg', unit: 'ud.', l: 'l' } as const;
const ALLERGEN_ES: Record<string, string> = {
  gluten: 'gluten',
  crustaceans: 'crustáceos',
  eggs: 'huevo',
  fish: 'pescado',
  peanuts: 'cacahuete',
  soybeans: 'soja',
  milk: 'leche',
  nuts: 'frutos de cáscara',
  celery: 'apio',
  mustard: 'mostaza',
  sesame: 'sésamo',
  sulphites: 'sulfitos',
  lupin: 'altramuces',
  molluscs: 'moluscos',
};

const day = (iso: string | null) => (iso ? `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}` : '—');
const decimal = (n: number) => String(n).replace('.', ',');
const madrid = (iso: string) =>
  new Intl.DateTimeFormat('es-ES', { timeZone: 'Europe/Madrid', dateStyle: 'long', timeStyle: 'medium' }).format(new Date(iso));

export type NoteSigner = {
  name: string;
  id_document: string;
  signature: { kind: 'drawn'; png: string } | { kind: 'typed'; text: string };
  /** The drawn signature's PNG bytes (checked by the caller). */
  png: Buffer | null;
};

export function renderDonationNote(input: { note: DonationNote; signer: NoteSigner; signedAt: string; ip: string }): Promise<Buffer> {
  const { note, signer, signedAt } = input;
  const kg = (status: 'accepted' | 'refused') =>
    decimal(Math.round(note.lines.filter((l) => l.status === status).reduce((sum, l) => sum + l.net_kg * 1000, 0)) / 1000);
  return renderPdf(
    {
      title: `Albarán de donación ${note.donation_id}`,
      subject: 'Albarán de entrega de donación de alimentos (Ley 1/2025)',
      author: note.donor.organization,
      createdAt: new Date(signedAt),
    },
    (w) => {
      w.heading('Albarán de entrega de donación de alimentos');
      w.paragraph('Ley 1/2025, de 1 de abril, de prevención de las pérdidas y el desperdicio alimentario', { muted: true, size: 9 });
      w.fields([
        ['Donante', `${note.donor.organization}${note.donor.cif ? `, CIF ${note.donor.cif}` : ''}`],
        ['Establecimiento', note.donor.establishment],
        ['Entidad receptora', `${note.entity.name}, NIF ${note.entity.nif}`],
        ['Donación', note.donation_id],
        ['Ofrecida', madrid(note.offered_at)],
      ]);
      w.heading('Alimentos', 2);
      for (const l of note.lines) {
        w.paragraph(`${l.position}. ${l.description} — ${STATUS_ES[l.status]}`, { bold: true });
        const facts = [
          foodCategoryLabel(l.food_category, 'es'),
          `${decimal(l.quantity)} ${UNIT_ES[l.unit]}, ${decimal(l.net_kg)} kg netos`,
          `lote ${l.lot ?? '—'}`,
          `consumo preferente ${day(l.best_before)}`,
          `caducidad ${day(l.use_by)}`,
          `${STORAGE_ES[l.storage]}${l.cooked ? ', cocinado' : ''}`,
          l.temperature_c === null ? null : `${decimal(l.temperature_c)} °C en la entrega`,
          `alérgenos: ${l.allergens.length ? l.allergens.map((a) => ALLERGEN_ES[a] ?? a).join(', ') : 'ninguno declarado'}`,
        ].filter((f): f is string => f !== null);
        w.paragraph(facts.join(' · '), { size: 9 });
        if (l.refusal_reason) w.paragraph(`Motivo del rechazo: ${l.refusal_reason}`, { size: 9 });
      }
      w.fields([
        ['Aceptado', `${kg('accepted')} kg`],
        ['Rechazado', `${kg('refused')} kg (el donante lo destina al siguiente paso de la jerarquía, art. 5)`],
      ]);
      w.heading('Firma de la entidad receptora', 2);
      w.fields([
        ['Nombre', signer.name],
        ['Documento de identidad', signer.id_document],
        ['Fecha y hora', `${madrid(signedAt)} (${signedAt} UTC)`],
        ['Dirección IP', input.ip],
      ]);
      if (signer.png) {
        w.ensureSpace(100);
        w.doc.image(signer.png, w.left, w.doc.y, { fit: [220, 90] });
        w.doc.y += 96;
      } else if (signer.signature.kind === 'typed') {
        w.paragraph(signer.signature.text, { size: 18 });
      }
      w.paragraph(
        'La entidad declara recibir los alimentos aceptados en las condiciones indicadas y haber rechazado, con su motivo, los que figuran como rechazados. ' +
          'La huella SHA-256 de este documento queda guardada con el registro de la donación en Merma.',
        { muted: true, size: 8 },
      );
    },
    { footer: `Albarán de donación ${note.donation_id}` },
  );
}
