import PDFDocument from 'pdfkit';

/**
 * The service's PDF documents (the donations' tax pack and certificates, the handover note), drawn
 * with pdfkit on A4 in the standard Helvetica, which every PDF reader has, so no font is embedded.
 *
 * - **Same inputs, same bytes**: the metadata is fixed (producer, creator) and both dates are the
 *   `createdAt` the caller passes, read from the service's clock; pdfkit derives the file's /ID from
 *   them, so nothing in the file depends on when it was rendered.
 * - **Text**: the standard fonts are written in WinAnsi (Windows-1252), which holds Spanish (á é í ó
 *   ú ü ñ ¿ ¡ º ª), «», the euro sign and the usual punctuation. pdfkit writes any other character
 *   as broken bytes, so every text goes through `winAnsi` first: a letter that has a base letter
 *   in WinAnsi becomes it (ő → o, ș → s), anything else `?` (ł, →, 日).
 * - **Cost**: rendering is synchronous JavaScript on the event loop: a table of 3 000 rows (57
 *   pages) took about a second on a 2-core machine, some 15–20 ms a page. A document of a few pages
 *   is cheap; one of hundreds of pages holds the loop for seconds, which is the point at which
 *   rendering would move to a worker thread.
 */

export type PdfDocument = PDFKit.PDFDocument;

export type PdfInfo = {
  title: string;
  subject?: string;
  author?: string;
  keywords?: string;
  /** The document's date (CreationDate and ModDate): the service clock's now, so a re-render is identical. */
  createdAt: Date;
  /** BCP 47 language of the text; Spanish by default. */
  lang?: string;
};

export type PdfOptions = {
  /** Deflate the page streams (pdfkit's default). Off, the text can be read in the bytes, for tests. */
  compress?: boolean;
  /** Written at the foot of every page, left, with "Página n de N" on the right. */
  footer?: string;
};

/** 2 cm, A4's usual margin. */
export const PDF_MARGIN = 56.69;
export const PDF_FONT = 'Helvetica';
export const PDF_FONT_BOLD = 'Helvetica-Bold';
export const PDF_FONT_SIZE = 10;
const PRODUCER = 'Merma';
const MUTED = '#555555';
const RULE = '#999999';

/** Unicode code points WinAnsi places in 0x80–0x9F (the rest of 0xA0–0xFF is Latin-1 as it is). */
const WIN_ANSI_EXTRA = new Set([
  0x20ac, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x017d, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x017e, 0x0178,
]);
const inWinAnsi = (code: number) => (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(code);

/**
 * `text` as the standard fonts can write it: line breaks and tabs kept as spaces or breaks, every
 * other character outside WinAnsi replaced by its base letter when it has one in WinAnsi (NFKD), or `?`.
 */
export function winAnsi(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === '\n') out += '\n';
    else if (char === '\r' || char === '\t') out += ' ';
    else if (inWinAnsi(code)) out += char;
    else {
      const base = char.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
      out += base.length > 0 && [...base].every((c) => inWinAnsi(c.codePointAt(0) as number)) ? base : '?';
    }
  }
  return out;
}

export type TableColumn = {
  header: string;
  /** Share of the text width (the shares of a table add up to 1). */
  width: number;
  align?: 'left' | 'right';
};

/**
 * What documents are drawn with: headings, paragraphs, label–value fields, tables that break across
 * pages repeating their header, and a signature box, all in the document's font and WinAnsi. `doc`
 * is pdfkit's document for anything else (pass text through `winAnsi`).
 */
export class PdfWriter {
  constructor(readonly doc: PdfDocument) {}

  get left(): number {
    return this.doc.page.margins.left;
  }

  get width(): number {
    return this.doc.page.width - this.doc.page.margins.left - this.doc.page.margins.right;
  }

  /** Starts a new page unless `height` points still fit above the bottom margin. */
  ensureSpace(height: number): void {
    if (this.doc.y + height > this.doc.page.height - this.doc.page.margins.bottom) this.doc.addPage();
  }

  heading(text: string, level: 1 | 2 = 1): this {
    const size = level === 1 ? 15 : 12;
    this.ensureSpace(size * 3);
    if (this.doc.y > this.doc.page.margins.top) this.doc.moveDown(level === 1 ? 0.8 : 0.6);
    this.doc.font(PDF_FONT_BOLD).fontSize(size).fillColor('black').text(winAnsi(text), this.left, this.doc.y, { width: this.width });
    this.doc.moveDown(0.3);
    this.doc.font(PDF_FONT).fontSize(PDF_FONT_SIZE);
    return this;
  }

  paragraph(text: string, options: { bold?: boolean; muted?: boolean; size?: number; align?: 'left' | 'justify' | 'center' } = {}): this {
    this.doc
      .font(options.bold ? PDF_FONT_BOLD : PDF_FONT)
      .fontSize(options.size ?? PDF_FONT_SIZE)
      .fillColor(options.muted ? MUTED : 'black')
      .text(winAnsi(text), this.left, this.doc.y, { width: this.width, align: options.align ?? 'left' });
    this.doc.moveDown(0.4).font(PDF_FONT).fontSize(PDF_FONT_SIZE).fillColor('black');
    return this;
  }

  /** Label–value rows, the labels in bold in a column of `labelShare` of the width. */
  fields(rows: readonly (readonly [label: string, value: string])[], labelShare = 0.32): this {
    const labelWidth = this.width * labelShare;
    const valueWidth = this.width - labelWidth - 8;
    for (const [label, value] of rows) {
      this.doc.font(PDF_FONT).fontSize(PDF_FONT_SIZE);
      const height = Math.max(
        this.doc.font(PDF_FONT_BOLD).heightOfString(winAnsi(label), { width: labelWidth }),
        this.doc.font(PDF_FONT).heightOfString(winAnsi(value), { width: valueWidth }),
      );
      this.ensureSpace(height);
      const y = this.doc.y;
      this.doc.font(PDF_FONT_BOLD).text(winAnsi(label), this.left, y, { width: labelWidth });
      this.doc.font(PDF_FONT).text(winAnsi(value), this.left + labelWidth + 8, y, { width: valueWidth });
      this.doc.y = y + height + 3;
    }
    this.doc.x = this.left;
    this.doc.moveDown(0.3);
    return this;
  }

  /** A table; a row that does not fit starts a new page, which repeats the header. `bold` rows are totals. */
  table(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: { boldRows?: ReadonlySet<number> } = {}): this {
    const gap = 6;
    const widths = columns.map((c) => this.width * c.width - gap);
    const xs = columns.map((_, i) => this.left + columns.slice(0, i).reduce((a, c) => a + this.width * c.width, 0));
    const size = PDF_FONT_SIZE - 1;
    const heightOf = (cells: readonly string[], font: string) =>
      Math.max(
        ...cells.map((cell, i) =>
          this.doc
            .font(font)
            .fontSize(size)
            .heightOfString(winAnsi(cell), { width: widths[i] as number }),
        ),
      );
    const drawRow = (cells: readonly string[], font: string) => {
      const height = heightOf(cells, font);
      const y = this.doc.y;
      cells.forEach((cell, i) => {
        this.doc
          .font(font)
          .fontSize(size)
          .text(winAnsi(cell), xs[i] as number, y, { width: widths[i] as number, align: columns[i]?.align ?? 'left' });
      });
      this.doc.y = y + height + 3;
    };
    const drawHeader = () => {
      drawRow(
        columns.map((c) => c.header),
        PDF_FONT_BOLD,
      );
      const y = this.doc.y - 1.5;
      this.doc
        .moveTo(this.left, y)
        .lineTo(this.left + this.width, y)
        .lineWidth(0.5)
        .strokeColor(RULE)
        .stroke();
    };
    this.ensureSpace(
      heightOf(
        columns.map((c) => c.header),
        PDF_FONT_BOLD,
      ) + 30,
    );
    drawHeader();
    rows.forEach((cells, index) => {
      const font = options.boldRows?.has(index) ? PDF_FONT_BOLD : PDF_FONT;
      if (this.doc.y + heightOf(cells, font) > this.doc.page.height - this.doc.page.margins.bottom) {
        this.doc.addPage();
        drawHeader();
      }
      drawRow(cells, font);
    });
    this.doc.x = this.left;
    this.doc.font(PDF_FONT).fontSize(PDF_FONT_SIZE).moveDown(0.5);
    return this;
  }

  /** A box to sign in, with `lines` written under it (name, role, date). */
  signature(lines: readonly string[], width = 240, height = 70): this {
    this.ensureSpace(height + lines.length * 14 + 10);
    const y = this.doc.y;
    this.doc.rect(this.left, y, width, height).lineWidth(0.5).strokeColor(RULE).stroke();
    this.doc.y = y + height + 4;
    for (const line of lines)
      this.doc
        .font(PDF_FONT)
        .fontSize(PDF_FONT_SIZE - 1)
        .text(winAnsi(line), this.left, this.doc.y, { width });
    this.doc.x = this.left;
    this.doc.fontSize(PDF_FONT_SIZE).moveDown(0.5);
    return this;
  }

  pageBreak(): this {
    this.doc.addPage();
    return this;
  }
}

function writeFooters(doc: PdfDocument, footer: string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { margins, width, height } = doc.page;
    const bottom = margins.bottom;
    // Below the bottom margin: pdfkit would start a new page for text there unless the margin is lifted.
    doc.page.margins.bottom = 0;
    const y = height - bottom / 2 - PDF_FONT_SIZE / 2;
    const textWidth = width - margins.left - margins.right;
    doc
      .font(PDF_FONT)
      .fontSize(PDF_FONT_SIZE - 2)
      .fillColor(MUTED);
    doc.text(winAnsi(footer), margins.left, y, { width: textWidth * 0.75, lineBreak: false, height: PDF_FONT_SIZE });
    doc.text(`Página ${i - range.start + 1} de ${range.count}`, margins.left, y, { width: textWidth, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor('black');
}

/**
 * Renders an A4 document: `draw` writes its content with a `PdfWriter` (already on the first page,
 * in Helvetica 10), and the document's bytes are returned once pdfkit has written them all.
 */
export async function renderPdf(info: PdfInfo, draw: (writer: PdfWriter) => void, options: PdfOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: PDF_MARGIN,
    compress: options.compress ?? true,
    bufferPages: options.footer !== undefined,
    lang: info.lang ?? 'es-ES',
    displayTitle: true,
    info: {
      // The metadata is written as UTF-16 when it needs to be: no character is lost there.
      Title: info.title,
      ...(info.subject ? { Subject: info.subject } : {}),
      ...(info.author ? { Author: info.author } : {}),
      ...(info.keywords ? { Keywords: info.keywords } : {}),
      Producer: PRODUCER,
      Creator: PRODUCER,
      CreationDate: info.createdAt,
      ModDate: info.createdAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.font(PDF_FONT).fontSize(PDF_FONT_SIZE).fillColor('black');
  draw(new PdfWriter(doc));
  if (options.footer !== undefined) writeFooters(doc, options.footer);
  doc.end();
  return done;
}
