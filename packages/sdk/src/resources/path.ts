import type { Call, HttpCore, RequestOptions } from '../core/http.js';

/**
 * One path segment from a caller's id: percent-encoded, so an id can never change the path it is
 * sent to (`..`, `/`, `?`, `#`); a malformed id reaches the API, which answers 400 or 404.
 */
export function segment(id: string): string {
  return encodeURIComponent(String(id)).replaceAll('.', '%2E');
}

/**
 * A file the API answers instead of JSON (a PDF, a CSV, a ZIP), as its bytes: asked for with
 * `accept`, sent with the retries of any call; an error status is the same APIError as for JSON.
 */
export async function download(core: HttpCore, call: Call, accept: string, options: RequestOptions | undefined): Promise<Uint8Array> {
  const response = await core.request(call, { ...options, headers: { accept, ...options?.headers } }).asResponse();
  return new Uint8Array(await response.arrayBuffer());
}
