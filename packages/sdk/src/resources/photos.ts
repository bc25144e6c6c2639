import type { APIPromise } from '../core/api-promise.js';
import type { HttpCore, RequestOptions } from '../core/http.js';
import type { Photo, PhotoWithDownload } from '../generated/api-types.js';
import { segment } from './path.js';

/** The image types the API takes for a photo. */
export type PhotoContentType = 'image/jpeg' | 'image/png' | 'image/webp';

/**
 * Photos of the waste: the evidence behind a record. Upload the image, then put the photo's `url`
 * in the record's `photo_url`; `get` answers a short-lived `download_url` to show or hand on.
 *
 * ```ts
 * const photo = await merma.photos.create(await readFile('bin.jpg'), { contentType: 'image/jpeg' });
 * await merma.records.create({ food_category: 'bakery', weight_kg: 2.4, destino_id, photo_url: photo.url });
 * ```
 */
export class Photos {
  constructor(private readonly core: HttpCore) {}

  /**
   * Uploads a JPEG, PNG or WebP image (up to 8 MiB). The same bytes again answer the same photo, so
   * a retry after a lost answer stores nothing twice. A `Blob` or `File` with a type of its own
   * needs no `contentType`.
   */
  create(image: Blob, options?: RequestOptions & { contentType?: PhotoContentType }): APIPromise<Photo>;
  create(image: Uint8Array | ArrayBuffer, options: RequestOptions & { contentType: PhotoContentType }): APIPromise<Photo>;
  create(image: Uint8Array | ArrayBuffer | Blob, options: RequestOptions & { contentType?: PhotoContentType } = {}): APIPromise<Photo> {
    const { contentType, ...request } = options;
    const type = contentType ?? (typeof Blob !== 'undefined' && image instanceof Blob ? image.type : '');
    if (!type) {
      throw new TypeError('photos.create needs the image type: pass { contentType: "image/jpeg" } (or image/png, image/webp)');
    }
    return this.core.request({ method: 'POST', path: '/photos', rawBody: { data: image, contentType: type } }, request);
  }

  /** The photo, with a `download_url` that works without a key until `download_expires_at` (5 minutes by default). */
  get(id: string, options?: RequestOptions): APIPromise<PhotoWithDownload> {
    return this.core.request({ method: 'GET', path: `/photos/${segment(id)}` }, options);
  }
}
