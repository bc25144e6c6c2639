import i18next from 'i18next';
import { useMemo, useSyncExternalStore } from 'react';
import english from '../i18n/sign.en.json';
import spanish from '../i18n/sign.es.json';

/**
 * The signing page's words (src/i18n/sign.es.json and sign.en.json, both in the page's script:
 * a few kilobytes, so a language switch needs no network), in an i18next instance of its own: the
 * page loads none of the dashboard's messages. Spanish by default; English when the volunteer's
 * browser prefers it, or when chosen on the page (remembered as the dashboard remembers it).
 */

export const SIGN_LANGUAGES = ['es', 'en'] as const;
export type SignLanguage = (typeof SIGN_LANGUAGES)[number];

/** The same key as the dashboard's: one choice per browser. */
const STORAGE_KEY = 'merma.language';

const isLanguage = (value: unknown): value is SignLanguage =>
  typeof value === 'string' && (SIGN_LANGUAGES as readonly string[]).includes(value);

/** The language chosen before, else the first of the browser's preferred languages the page speaks, else Spanish. */
export function pickLanguage(stored: string | null, preferred: readonly (string | undefined)[]): SignLanguage {
  if (isLanguage(stored)) return stored;
  for (const tag of preferred) {
    const base = tag?.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'es';
}

function storedLanguage(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Every message's key (`sign.lines.accept`), a plural's without its `_one`/`_other`. */
type Leaves<T> = { [K in keyof T & string]: T[K] extends string ? K : `${K}.${Leaves<T[K]>}` }[keyof T & string];
type WithoutPlural<K extends string> = K extends `${infer Base}_${'one' | 'other'}` ? Base : K;
export type SignKey = WithoutPlural<Leaves<typeof spanish>>;
export type SignT = (key: SignKey, values?: Record<string, string | number>) => string;

const instance = i18next.createInstance();
void instance.init({
  resources: { es: { sign: spanish }, en: { sign: english } },
  lng: pickLanguage(storedLanguage(), navigator.languages?.length ? navigator.languages : [navigator.language]),
  fallbackLng: false,
  supportedLngs: [...SIGN_LANGUAGES],
  ns: ['sign'],
  defaultNS: 'sign',
  nsSeparator: false,
  initAsync: false,
  interpolation: { escapeValue: false }, // React escapes
});

/** A message in the current language. (The instance's own `t` is typed for the dashboard's messages.) */
export const t: SignT = (key, values) => (instance.t as unknown as (k: string, v?: object) => string)(key, values);

export function currentLanguage(): SignLanguage {
  return isLanguage(instance.language) ? instance.language : 'es';
}

/** The tab's title, by what the link signs (`setDocumentTitle`). */
let titleKey: SignKey = 'sign.app.documentTitle';

function applyLanguage(language: string) {
  document.documentElement.lang = language;
  document.title = t(titleKey);
}

/** Names the tab for what the link signs, in the current language and the next. */
export function setDocumentTitle(key: SignKey): void {
  titleKey = key;
  applyLanguage(currentLanguage());
}
applyLanguage(currentLanguage());
instance.on('languageChanged', applyLanguage);

/** Switches the language and remembers the choice. */
export function changeLanguage(language: SignLanguage): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not remembered; the switch still applies to this page
  }
  void instance.changeLanguage(language);
}

function subscribe(onChange: () => void) {
  instance.on('languageChanged', onChange);
  return () => instance.off('languageChanged', onChange);
}

/**
 * The locale dates and numbers are written in: the browser's own regional form of the language
 * (`en-US`, `es-MX`), else Spain's (`es-ES`, and `en-GB` for English read in Spain: day first).
 */
export function formatLocale(language: SignLanguage, preferred: readonly (string | undefined)[]): string {
  const regional = preferred.find((tag) => tag?.toLowerCase().split('-')[0] === language);
  try {
    if (regional) return Intl.getCanonicalLocales(regional)[0] ?? language;
  } catch {
    // a malformed tag from the browser
  }
  return language === 'es' ? 'es-ES' : 'en-GB';
}

/** The current language, its `t` and locale; a component using it is drawn again when the language changes. */
export function useSignI18n(): { t: SignT; language: SignLanguage; locale: string } {
  const language = useSyncExternalStore(subscribe, currentLanguage);
  return useMemo(() => {
    const fixed = instance.getFixedT(language) as unknown as (k: string, v?: object) => string;
    const translate: SignT = (key, values) => fixed(key, values);
    const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
    return { t: translate, language, locale: formatLocale(language, preferred) };
  }, [language]);
}
