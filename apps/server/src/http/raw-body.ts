/**
 * A parsed body that is not JSON (a PDF, an image): its bytes are not enumerable, so a surface's
 * storable-JSON check (surfaces/hooks.ts) does not walk megabytes byte by byte. Each kind has its
 * own subclass (agreement-document.ts `PdfBody`, photo-body.ts `ImageBody`), so a route takes only
 * the kind its parser made.
 */
export class RawBody {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get bytes(): Buffer {
    return this.#bytes;
  }
}
