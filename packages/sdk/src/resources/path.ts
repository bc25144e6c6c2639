/**
 * One path segment from a caller's id: percent-encoded, so an id can never change the path it is
 * sent to (`..`, `/`, `?`, `#`); a malformed id reaches the API, which answers 400 or 404.
 */
export function segment(id: string): string {
  return encodeURIComponent(String(id)).replaceAll('.', '%2E');
}
