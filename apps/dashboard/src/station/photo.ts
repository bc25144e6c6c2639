/**
 * A photo of the waste, taken at the bin: brought down on the tablet to what the register needs
 * before it is queued, so the outbox holds (and later sends over the kitchen's Wi-Fi) a few hundred
 * kilobytes rather than a camera's several megabytes. Re-encoding also leaves the camera's metadata
 * (its EXIF, the place it was taken among it) on the tablet.
 */

/**
 * The types the server takes (PHOTO_CONTENT_TYPES of @merma/schema, whose entry ships zod, which the
 * page does not: repeated here, and test/station-photo.test.tsx keeps the two lists equal).
 */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
/** The largest photo the server takes (MAX_PHOTO_BYTES, repeated for the same reason). */
export const PHOTO_MAX_BYTES = 8 * 1024 * 1024;
/** The long side a photo is brought down to: enough to see what was thrown; about 300 kB as JPEG. */
export const PHOTO_LONG_SIDE = 1600;
const JPEG_QUALITY = 0.8;

/** A photo ready to be queued with its record, or why it cannot be. */
export type PreparedPhoto = { photo: Blob } | { problem: 'unreadable' | 'tooBig' };

const isPhotoType = (type: string) => (PHOTO_TYPES as readonly string[]).includes(type);

/**
 * The camera's file as the station queues it: decoded, drawn at most PHOTO_LONG_SIDE px on its long
 * side, and encoded as JPEG. A file the browser cannot decode this way is kept as it is when the
 * server takes its type (the server checks its bytes), and refused otherwise.
 */
export async function preparePhoto(file: Blob): Promise<PreparedPhoto> {
  const bitmap = await decode(file);
  const encoded = bitmap && (await encodeJpeg(bitmap, PHOTO_LONG_SIDE).finally(() => bitmap.close()));
  if (encoded) return { photo: encoded };
  if (!isPhotoType(file.type)) return { problem: 'unreadable' };
  if (file.size > PHOTO_MAX_BYTES) return { problem: 'tooBig' };
  return { photo: file };
}

async function decode(file: Blob): Promise<ImageBitmap | undefined> {
  if (typeof createImageBitmap !== 'function') return undefined;
  try {
    // Upright as the camera meant it (its EXIF orientation), since the encoded JPEG carries none.
    return await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return undefined;
  }
}

/** `bitmap` on a canvas at most `longSide` px on its long side (never enlarged). */
function drawn(bitmap: ImageBitmap, longSide: number): HTMLCanvasElement | undefined {
  const scale = Math.min(1, longSide / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  const context = canvas.getContext('2d');
  if (!context) return undefined;
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return canvas;
}

function encodeJpeg(bitmap: ImageBitmap, longSide: number): Promise<Blob | undefined> {
  const canvas = drawn(bitmap, longSide);
  if (!canvas) return Promise.resolve(undefined);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob ?? undefined), 'image/jpeg', JPEG_QUALITY));
}
