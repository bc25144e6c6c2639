/**
 * Runs the browser's first date and number formats on a thread of their own (see warm-intl.ts):
 * ICU's set-up and each locale's data are the renderer process's, shared with the page's thread.
 * The dashboard's two languages, the browser's own first (its region: `en-GB`, `es-MX`), in the
 * zone most establishments keep and with the options the pages use most.
 */
const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
for (const locale of new Set([...preferred.slice(0, 2), 'es', 'en'])) {
  try {
    new Intl.DateTimeFormat(locale, { timeZone: 'Europe/Madrid', dateStyle: 'medium', timeStyle: 'short' }).format(0);
    new Intl.DateTimeFormat(locale, { timeZone: 'UTC', day: 'numeric', month: 'short' }).format(0);
    new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(1234.5);
  } catch {
    // a malformed tag from the browser: the next locale
  }
}
postMessage('warm');
