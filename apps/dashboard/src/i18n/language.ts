/**
 * The dashboard's languages and how a page picks one: what the app (i18n/index.ts) and the
 * sign-in page (src/sign-in/) share. No i18next here: the sign-in page carries its few words itself.
 */

/** The languages the dashboard speaks; the first is the default. */
export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = 'merma.language';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

function storedLanguage(): Language | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLanguage(value) ? value : null;
  } catch {
    return null; // storage blocked (privacy mode): fall back to the browser's language
  }
}

/**
 * The language chosen before (kept in localStorage), else the browser's: the first of its preferred
 * languages that the dashboard speaks (`en-GB` → English, `es-MX` → Spanish); Spanish otherwise.
 */
export function detectLanguage(): Language {
  const stored = storedLanguage();
  if (stored) return stored;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of preferred) {
    const base = tag?.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return LANGUAGES[0];
}

/** Remembers a language chosen on a page, for every page of the dashboard in this browser. */
export function rememberLanguage(language: Language) {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not remembered; the switch still applies to this page
  }
}

/**
 * The page's language, and a cookie that tells the server which language's first frame to send
 * next time (apps/server/src/http/dashboard-app.ts): it cannot read localStorage. Not sensitive,
 * so readable by scripts (Secure over HTTPS); a year, like the choice it mirrors.
 */
export function applyLanguage(language: string) {
  document.documentElement.lang = language;
  // (The tab's title is each page's, useDocumentTitle; the HTML's until one is shown.)
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  // biome-ignore lint/suspicious/noDocumentCookie: one plain cookie; the Cookie Store API is not in every browser the dashboard supports.
  document.cookie = `merma_language=${language}; Path=/dashboard; Max-Age=31536000; SameSite=Lax${secure}`;
}
