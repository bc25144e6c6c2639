import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import es from './es.json';

/** The languages the dashboard speaks; the first is the default. */
export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = 'merma.language';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof es };
    // Permission names (`records:read`) are message keys: ':' is not a namespace separator here.
    nsSeparator: false;
  }
}

function isLanguage(value: unknown): value is Language {
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

/**
 * The locale dates and numbers are written in: the browser's own tag when it is a regional form
 * of the chosen language (an `en-GB` browser reading English gets 24/11/2026, an `es-MX` one
 * reading Spanish its own forms), else the bare language (`en`, `es`). The words stay those of
 * the message files; only how figures and dates are written follows the region.
 */
export function formatLocale(language: string): string {
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  const regional = preferred.find((tag) => tag?.toLowerCase().split('-')[0] === language);
  if (!regional) return language;
  try {
    return Intl.getCanonicalLocales(regional)[0] ?? language;
  } catch {
    return language; // a malformed tag from the browser
  }
}

export const i18n = i18next.createInstance();

void i18n.use(initReactI18next).init({
  resources: { es: { translation: es }, en: { translation: en } },
  lng: detectLanguage(),
  fallbackLng: LANGUAGES[0],
  supportedLngs: [...LANGUAGES],
  nsSeparator: false,
  interpolation: { escapeValue: false }, // React escapes
  initAsync: false,
});

function applyLanguage(language: string) {
  document.documentElement.lang = language;
  document.title = i18n.t('app.name');
}

applyLanguage(i18n.language);
i18n.on('languageChanged', applyLanguage);

/** Switches the language and remembers the choice. */
export function changeLanguage(language: Language) {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not remembered; the switch still applies to this page
  }
  void i18n.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : LANGUAGES[0];
}
