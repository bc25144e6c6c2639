/**
 * The CSRF cookie's names: `__Host-merma_csrf` in production (HTTPS only; the prefix keeps other
 * subdomains from setting it), `merma_csrf` in development over plain HTTP. The server sets one.
 */
const CSRF_COOKIES = ['__Host-merma_csrf', 'merma_csrf'];

/** The CSRF token the server set in its CSRF cookie (readable by design: double-submit). */
export function csrfToken(): string | undefined {
  const found = new Map<string, string>();
  for (const part of document.cookie.split(';')) {
    const [name = '', ...value] = part.trim().split('=');
    if (CSRF_COOKIES.includes(name)) found.set(name, decodeURIComponent(value.join('=')));
  }
  return CSRF_COOKIES.map((name) => found.get(name)).find((value) => value !== undefined);
}
