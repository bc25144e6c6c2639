import type { DonationTaxPack } from '@merma/schema';
import { AppError } from '../../errors.js';
import { type PdfWriter, renderPdf } from '../../pdf/document.js';
import { certificateContent } from './certificate-content.js';
import type { TaxNoteCode } from './tax.js';
import { dayText, eurosText, instantDayText, kgText, LEGAL_FORM_ES, rateText, TAX_NOTE_ES, yesNo } from './tax-es.js';
import type { TaxReport } from './tax-report.js';

/**
 * The tax pack's PDF documents, in Spanish, from the same figures as the JSON (tax-report.ts):
 *
 * - the **yearly summary** for the company's adviser: per company (CIF), its totals and limit, each
 *   entity's base, rate and recurrence test and whether its signed certificate is stored
 *   (certificates.ts), each establishment's share, each donation's VAT, and the notes in full;
 * - the **certificate of Ley 49/2002 art. 24** for one entity, pre-filled for its representative
 *   to sign: the donor's and the entity's identities, the entity's status, each delivery (date,
 *   goods, kg, value under art. 18), the use of the goods, that the gift is irrevocable, and a blank
 *   place, date and signature. One per donor company, each on its own pages. An entity that issues
 *   its own certificate signs that one instead.
 *
 * A test key's documents say, on every page, that they are a test without tax value.
 */

const TEST_MARK = 'PRUEBA — datos de prueba, sin validez fiscal';

/** The use the certificate states, which the entity confirms by signing (Ley 49/2002 art. 24 and 3.1.º). */
export const CERTIFICATE_USE =
  'Los bienes recibidos se destinan a la distribución gratuita de alimentos para consumo humano a personas en situación de necesidad, en cumplimiento de los fines de interés general de la entidad.';

function notesSection(w: PdfWriter, codes: ReadonlySet<TaxNoteCode>): void {
  if (codes.size === 0) return;
  w.heading('Notas', 2);
  for (const code of codes) w.paragraph(`${TAX_NOTE_ES[code].short}. ${TAX_NOTE_ES[code].text}`, { size: 8.5 });
}

function collectNotes(pack: DonationTaxPack): Set<TaxNoteCode> {
  const codes = new Set<TaxNoteCode>();
  for (const t of pack.taxpayers) {
    for (const n of t.totals?.notes ?? []) codes.add(n.code);
    for (const e of t.entities) for (const n of e.notes) codes.add(n.code);
    for (const d of t.donations) for (const n of d.notes) codes.add(n.code);
  }
  return codes;
}

/** The yearly summary (see above). */
export function taxPackPdf({ pack, details }: TaxReport, options: { createdAt: Date; compress?: boolean }): Promise<Buffer> {
  const title = `Pack fiscal de donaciones — ejercicio ${pack.year}`;
  return renderPdf(
    {
      title,
      subject: `Donaciones a entidades sociales de ${details.organisation}`,
      author: details.organisation,
      createdAt: options.createdAt,
    },
    (w) => {
      w.heading(title);
      if (!pack.livemode) w.paragraph(TEST_MARK, { bold: true });
      w.fields([
        ['Organización', details.organisation],
        [
          'Alcance',
          pack.scope === 'organisation'
            ? 'Todos los establecimientos de la organización'
            : 'Un establecimiento: sus donaciones y su parte de las deducciones; el porcentaje y la recurrencia leen toda la empresa',
        ],
        ['Generado', `${dayText(pack.generated_at.slice(0, 10))} (UTC)`],
        [
          'Reglas',
          pack.rules.computed
            ? `Ley 49/2002 art. 18 y 20 (redacción desde 2024): ${pack.rules.rate_pct} %, ${pack.rules.recurrent_rate_pct} % por recurrencia, límite del ${pack.rules.taxable_base_limit_pct} % de la base imponible, exceso deducible en ${pack.rules.carry_forward_years} años. IVA: Ley 37/1992 art. 79.Tres y 91.Cuatro.`
            : 'Ejercicio anterior a 2024: la deducción no se calcula.',
        ],
      ]);
      if (pack.taxpayers.length === 0) w.paragraph(`Ninguna donación entregada en ${pack.year}.`);
      for (const taxpayer of pack.taxpayers) {
        w.heading(`Empresa donante: CIF ${taxpayer.cif}`);
        if (taxpayer.totals) {
          const t = taxpayer.totals;
          w.fields([
            ['Kilos donados', kgText(t.net_kg)],
            ['Valor contable', eurosText(t.book_value)],
            ['Reducción a valor de mercado', eurosText(t.market_value_cap)],
            ['Base (art. 18)', eurosText(t.base)],
            ['Base con derecho a deducción', eurosText(t.deductible_base)],
            ['Base imponible indicada', t.taxable_base === null ? 'No indicada: límite del 15 % no comprobado' : eurosText(t.taxable_base)],
            ['Límite del 15 %', t.limit === null ? '—' : eurosText(t.limit)],
            ['Base dentro del límite', eurosText(t.base_within_limit)],
            [
              'Exceso sobre el límite',
              `${eurosText(t.base_over_limit)}${t.carry_forward_until_year ? ` (deducible hasta ${t.carry_forward_until_year})` : ''}`,
            ],
            ['Deducción en cuota (IS)', eurosText(t.deduction)],
          ]);
        }
        w.heading('Por entidad', 2);
        w.table(
          [
            { header: 'Entidad', width: 0.22 },
            { header: 'Art. 2 / régimen', width: 0.11 },
            { header: 'Base art. 18', width: 0.13, align: 'right' },
            { header: '%', width: 0.06, align: 'right' },
            { header: 'Deducción', width: 0.13, align: 'right' },
            { header: `Base ${pack.year - 2} / ${pack.year - 1}`, width: 0.22, align: 'right' },
            { header: 'Certificado firmado', width: 0.13 },
          ],
          taxpayer.entities.map((e) => {
            const base = e.totals?.base ?? e.establishments.reduce((a, s) => a + s.base, 0);
            const deduction = e.totals?.deduction ?? e.establishments.reduce((a, s) => a + s.deduction, 0);
            return [
              `${e.name} (${e.nif})`,
              `${yesNo(e.ley_49_2002.art2_entity)} / ${yesNo(e.ley_49_2002.regime_opted_in)}`,
              eurosText(base),
              rateText(e.rate_pct),
              eurosText(deduction),
              `${e.recurrence.years.map((y) => eurosText(y.base)).join(' / ')}${e.recurrence.met ? ' (recurrencia)' : ''}`,
              e.signed_certificate ? `Recibido ${instantDayText(e.signed_certificate.uploaded_at)}` : 'Pendiente',
            ];
          }),
        );
        w.heading('Por establecimiento', 2);
        w.table(
          [
            { header: 'Establecimiento', width: 0.32 },
            { header: 'Kilos', width: 0.14, align: 'right' },
            { header: 'Valor contable', width: 0.18, align: 'right' },
            { header: 'Base art. 18', width: 0.18, align: 'right' },
            { header: 'Deducción', width: 0.18, align: 'right' },
          ],
          taxpayer.establishments.map((e) => [
            e.name,
            kgText(e.net_kg),
            eurosText(e.book_value),
            eurosText(e.base),
            eurosText(e.deduction),
          ]),
        );
        w.heading('Donaciones e IVA', 2);
        w.table(
          [
            { header: 'Fecha', width: 0.12 },
            { header: 'Establecimiento', width: 0.2 },
            { header: 'Entidad', width: 0.24 },
            { header: 'Kilos', width: 0.12, align: 'right' },
            { header: 'Base art. 18', width: 0.14, align: 'right' },
            { header: 'IVA', width: 0.18 },
          ],
          taxpayer.donations.map((d) => [
            dayText(d.handed_over_on),
            details.establishments.get(d.establishment_id)?.name ?? '',
            details.entities.get(d.entity_id)?.name ?? '',
            kgText(d.net_kg),
            eurosText(d.base),
            d.vat.taxable_base === null ? 'Autoconsumo: asesor' : `Base ${eurosText(d.vat.taxable_base)}, tipo ${d.vat.rate_pct} %`,
          ]),
        );
      }
      notesSection(w, collectNotes(pack));
    },
    { footer: `${details.organisation} · ${title}${pack.livemode ? '' : ` · ${TEST_MARK}`}`, compress: options.compress ?? true },
  );
}

/** The representative's signature on a certificate signed through the entity's link (certificate-links.ts). */
export type CertificateSignature = {
  /** The company whose certificate was signed: only its page is rendered. */
  cif: string;
  name: string;
  idDocument: string;
  role: string;
  place: string;
  /** ISO instant. */
  signedAt: string;
  ip: string;
  signature: { png: Buffer } | { text: string };
};

/**
 * The certificate of Ley 49/2002 art. 24 for `entityId` (see above), one page per donor company
 * (certificate-content.ts); 404 when it received nothing in the year. With `signed`, the one
 * company's certificate as its representative signed it through the link: name, identity
 * document, position, place, time and address, and the drawn or typed signature.
 */
export function certificatePdf(
  report: TaxReport,
  entityId: string,
  options: { createdAt: Date; compress?: boolean; signed?: CertificateSignature },
): Promise<Buffer> {
  const content = certificateContent(report, entityId);
  const { entity } = content;
  const signed = options.signed;
  const givers = signed ? content.givers.filter((g) => g.cif === signed.cif) : content.givers;
  if (givers.length === 0)
    throw new AppError('not_found', `Company ${signed?.cif} handed nothing over to entity ${entityId} in ${content.year}`);
  const title = `Certificado de donativos ${content.year} — ${entity.name}`;
  return renderPdf(
    { title, subject: 'Certificado del art. 24 de la Ley 49/2002', author: entity.name, createdAt: options.createdAt },
    (w) => {
      givers.forEach((giver, index) => {
        if (index > 0) w.pageBreak();
        w.heading('Certificado de donaciones recibidas');
        w.paragraph(
          'Artículo 24 de la Ley 49/2002, de 23 de diciembre, de régimen fiscal de las entidades sin fines lucrativos y de los incentivos fiscales al mecenazgo.',
          { muted: true },
        );
        if (!content.livemode) w.paragraph(TEST_MARK, { bold: true });
        w.heading('Entidad donataria', 2);
        w.fields([
          ['Denominación', entity.name],
          ['NIF', entity.nif],
          ['Domicilio', entity.address],
          ['Forma jurídica', LEGAL_FORM_ES[entity.legal_form] ?? entity.legal_form],
          ['Registro', entity.registry_number ?? '—'],
          [
            'Ley 49/2002',
            entity.ley_49_2002.regime_opted_in
              ? `Entidad beneficiaria del mecenazgo (art. 16), acogida al régimen fiscal especial${entity.ley_49_2002.art2_entity ? ', entidad del art. 2' : ''}.`
              : 'La entidad no consta acogida al régimen fiscal especial de la Ley 49/2002: estos donativos no dan derecho a deducción (art. 16 y 20).',
          ],
        ]);
        w.heading('Donante', 2);
        w.fields([
          ['Denominación', content.organisation],
          ['NIF', giver.cif],
          ['Establecimientos', giver.establishments.join(', ')],
        ]);
        w.paragraph(
          `La entidad certifica que durante el ejercicio ${content.year} ha recibido del donante, con carácter irrevocable, puro y simple (art. 17 de la Ley 49/2002), las siguientes donaciones de bienes, entregadas en las fechas indicadas:`,
        );
        const rows = giver.deliveries.map((d) => [
          dayText(d.handed_over_on),
          d.description,
          kgText(d.net_kg),
          eurosText(d.value_cents / 100),
        ]);
        rows.push(['', 'Total', kgText(giver.totals.grams / 1000), eurosText(giver.totals.cents / 100)]);
        w.table(
          [
            { header: 'Fecha de entrega', width: 0.18 },
            { header: 'Bienes', width: 0.46 },
            { header: 'Kilos', width: 0.16, align: 'right' },
            { header: 'Valor (art. 18)', width: 0.2, align: 'right' },
          ],
          rows,
          { boldRows: new Set([rows.length - 1]) },
        );
        w.paragraph(
          'Valor de los bienes según el art. 18 de la Ley 49/2002: su valor contable en el momento de la entrega, sin exceder su valor normal de mercado.',
          { muted: true, size: 8.5 },
        );
        w.heading('Destino de los bienes', 2);
        w.paragraph(CERTIFICATE_USE);
        w.paragraph(
          'La donación es irrevocable: el donante no puede revocarla ni condicionarla. Se expide este certificado a efectos del art. 24 de la Ley 49/2002, para que el donante pueda aplicar las deducciones que procedan, y la entidad declarará estos donativos en el modelo 182.',
        );
        if (signed) {
          signedBlock(w, signed);
        } else {
          w.paragraph('En _______________________, a ____ de ____________________ de ________.');
          w.signature([
            'Firma del representante de la entidad y sello',
            'Nombre: ____________________________',
            'Cargo: _____________________________',
          ]);
        }
      });
    },
    {
      footer: `${entity.nif} · Certificado de donativos ${content.year}${content.livemode ? '' : ` · ${TEST_MARK}`}`,
      compress: options.compress ?? true,
    },
  );
}

/** Where, when and by whom a certificate was signed through the link, with the signature itself. */
function signedBlock(w: PdfWriter, signed: CertificateSignature): void {
  const day = instantDayText(signed.signedAt);
  w.paragraph(`En ${signed.place}, a ${day}.`);
  w.heading('Firma del representante de la entidad', 2);
  w.fields([
    ['Nombre', signed.name],
    ['Documento de identidad', signed.idDocument],
    ['Cargo', signed.role],
    ['Fecha y hora', `${signed.signedAt} (UTC)`],
    ['Dirección IP', signed.ip],
  ]);
  if ('png' in signed.signature) {
    w.ensureSpace(100);
    w.doc.image(signed.signature.png, w.left, w.doc.y, { fit: [220, 90] });
    w.doc.y += 96;
  } else {
    w.paragraph(signed.signature.text, { size: 18 });
  }
  w.paragraph(
    'Firmado a través del enlace de un solo uso que el donante envió a la entidad. La huella SHA-256 de este documento queda guardada con los certificados del donante en Merma y en la cadena de documentos de su registro.',
    { muted: true, size: 8 },
  );
}
