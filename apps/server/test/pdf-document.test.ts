import { describe, expect, it } from 'vitest';
import { renderPdf, winAnsi } from '../src/pdf/document.js';
import { pdfPageCount, pdfText } from './pdf.js';

/**
 * The PDF wrapper (src/pdf/document.ts): A4 in Helvetica, the same bytes for the same inputs and
 * clock, Spanish text and the euro sign written as they are, characters the standard fonts lack
 * replaced, tables across pages with their header repeated, and the page footers.
 */
const createdAt = new Date('2026-03-04T05:06:07.000Z');

const sample = (compress = true) =>
  renderPdf(
    { title: 'Certificado de donación', subject: 'Prueba', createdAt },
    (w) => {
      w.heading('Donación a la Fundación Ñandú');
      w.paragraph('Importe: 1.234,56 € — año 2025, «irrevocable», ¿sí? ¡Sí! 1.º y 2.ª');
      w.fields([
        ['NIF', 'G28029643'],
        ['Domicilio', 'Calle Mayor 1, 28013 Madrid'],
      ]);
    },
    { compress, footer: 'Merma · prueba' },
  );

describe('renderPdf', () => {
  it('writes the same bytes for the same inputs and clock, with its date and A4 pages', async () => {
    const [first, second] = [await sample(), await sample()];
    expect(first.subarray(0, 5).toString()).toBe('%PDF-');
    expect(first.equals(second)).toBe(true);
    const text = first.toString('latin1');
    expect(text).toMatch(/\(D:20260304050607Z/);
    expect(text).toContain('/MediaBox [0 0 595.28 841.89]');
    expect(text).toContain('/BaseFont /Helvetica');
    // Deflated by default: the text is not readable in the bytes, yet pdfText reads it.
    expect(text).not.toContain('Importe');
    expect(pdfText(first)).toContain('Importe: 1.234,56 €');
  });

  it('writes Spanish text and the euro sign in WinAnsi, and the footer on every page', async () => {
    const text = pdfText(await sample(false));
    expect(text).toContain('Donación a la Fundación Ñandú');
    expect(text).toContain('Importe: 1.234,56 € — año 2025, «irrevocable», ¿sí? ¡Sí! 1.º y 2.ª');
    expect(text).toContain('Calle Mayor 1, 28013 Madrid');
    expect(text).toContain('Merma · prueba');
    expect(text).toContain('Página 1 de 1');
  });

  it('replaces what the standard fonts cannot write', async () => {
    expect(winAnsi('Łódź → Ștefan 日本 😀 “ok” €')).toBe('?ódz ? Stefan ?? ? “ok” €');
    const pdf = await renderPdf({ title: 't', createdAt }, (w) => w.paragraph('Łódź → 😀'), { compress: false });
    expect(pdfText(pdf)).toContain('?ódz ? ?');
  });

  it('breaks a long table across pages, repeating its header', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => [`Línea ${i + 1}`, `${i},00 €`]);
    const pdf = await renderPdf(
      { title: 'Tabla', createdAt },
      (w) =>
        w.table(
          [
            { header: 'Descripción', width: 0.7 },
            { header: 'Valor', width: 0.3, align: 'right' },
          ],
          rows,
        ),
      { compress: false, footer: 'pie' },
    );
    const pages = pdfPageCount(pdf);
    expect(pages).toBeGreaterThan(1);
    const text = pdfText(pdf);
    expect(text.split('\n').filter((l) => l === 'Descripción')).toHaveLength(pages);
    expect(text).toContain('Línea 120');
    expect(text).toContain(`Página ${pages} de ${pages}`);
  });
});
