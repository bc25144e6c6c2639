import { inflateSync } from 'node:zlib';

/**
 * The text of a PDF drawn by src/pdf/document.ts, as its tests read it: each page stream (inflated
 * when deflated), each text-showing operator (`[<hex> kern <hex>] TJ`, `<hex> Tj`) as one line, its
 * hex strings decoded from WinAnsi (Windows-1252, the standard fonts' encoding) and the kerning
 * dropped. Enough for the documents pdfkit writes with the standard fonts; not a general PDF reader.
 */
export function pdfText(pdf: Buffer): string {
  const latin1 = pdf.toString('latin1');
  const streams: string[] = [];
  for (const m of latin1.matchAll(/>>\s*stream\r?\n/g)) {
    const start = (m.index as number) + m[0].length;
    const end = latin1.indexOf('endstream', start);
    // The stream's dictionary: from its object's header to the keyword.
    const dictionary = latin1.slice(latin1.lastIndexOf(' obj', m.index), m.index);
    const bytes = pdf.subarray(start, end);
    streams.push(dictionary.includes('/FlateDecode') ? inflateSafely(bytes) : bytes.toString('latin1'));
  }
  const decoder = new TextDecoder('windows-1252');
  const hex = (h: string) => decoder.decode(Buffer.from(h.replace(/\s/g, ''), 'hex'));
  const lines: string[] = [];
  for (const stream of streams) {
    for (const m of stream.matchAll(/\[((?:<[0-9a-fA-F\s]*>|[-\d.\s])*)\]\s*TJ|<([0-9a-fA-F\s]*)>\s*Tj/g)) {
      lines.push(
        m[1] !== undefined ? [...m[1].matchAll(/<([0-9a-fA-F\s]*)>/g)].map((p) => hex(p[1] as string)).join('') : hex(m[2] as string),
      );
    }
  }
  return lines.join('\n');
}

function inflateSafely(bytes: Buffer): string {
  // The stream may end with the line break before `endstream`.
  try {
    return inflateSync(bytes).toString('latin1');
  } catch {
    return inflateSync(bytes.subarray(0, bytes.length - 1)).toString('latin1');
  }
}

/** The PDF's page count, from its page tree. */
export const pdfPageCount = (pdf: Buffer) => [...pdf.toString('latin1').matchAll(/\/Type \/Page\b/g)].length;
