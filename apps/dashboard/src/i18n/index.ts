import i18next, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type auditEs from './audit.es.json';
import type donationsEs from './donations.es.json';
import type es from './es.json';
import type integrationsEs from './integrations.es.json';
import { applyLanguage, detectLanguage, isLanguage, LANGUAGES, type Language, rememberLanguage } from './language.ts';
import type planEs from './plan.es.json';
import type stationEs from './station.es.json';

export { detectLanguage, LANGUAGES, type Language };

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: {
      translation: typeof es;
      station: typeof stationEs;
      integrations: typeof integrationsEs;
      donations: typeof donationsEs;
      plan: typeof planEs;
      audit: typeof auditEs;
    };
    // Permission names (`records:read`) are message keys: ':' is not a namespace separator here.
    nsSeparator: false;
  }
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

/**
 * Each language's messages are a chunk of their own (~15 kB gzipped each), loaded when the language
 * is used: a page loads one language, not both. The kitchen station's words (its page's and the
 * dashboard's Stations page's) are a namespace of their own (`station`, station.es.json and
 * station.en.json), loaded when one of those pages is opened: the sign-in page's first load does
 * not carry them. The Integrations page's words are one too (`integrations`, integrations.es.json and
 * integrations.en.json), loaded when that page is opened; so are the Donations page's (`donations`,
 * donations.es.json and donations.en.json) and the Prevention plan page's (`plan`, plan.es.json and
 * plan.en.json; the plan banner every page may show stays in the main file), and the Audit log's
 * (`audit`, audit.es.json and audit.en.json: the names of every audited action).
 */
async function load(language: string, namespace: string) {
  // One import per branch: each loads its own chunk and nothing of the others.
  if (namespace === 'station') {
    if (language === 'en') return (await import('./station.en.json')).default;
    return (await import('./station.es.json')).default;
  }
  if (namespace === 'integrations') {
    if (language === 'en') return (await import('./integrations.en.json')).default;
    return (await import('./integrations.es.json')).default;
  }
  if (namespace === 'plan') {
    if (language === 'en') return (await import('./plan.en.json')).default;
    return (await import('./plan.es.json')).default;
  }
  if (namespace === 'audit') {
    if (language === 'en') return (await import('./audit.en.json')).default;
    return (await import('./audit.es.json')).default;
  }
  if (namespace === 'donations') {
    if (language === 'en') return (await import('./donations.en.json')).default;
    return (await import('./donations.es.json')).default;
  }
  if (language === 'en') return (await import('./en.json')).default;
  return (await import('./es.json')).default;
}

const messages: BackendModule = {
  type: 'backend',
  init() {},
  read(language, namespace, done) {
    load(language, namespace).then(
      (m) => done(null, m),
      (error: Error) => done(error, false),
    );
  },
};

export const i18n = i18next.createInstance();

/**
 * Resolves once the chosen language's messages are loaded: main.tsx renders after it. No fallback
 * language (that would load the other file too): both files have the same keys (dashboard-i18n test).
 */
export const i18nReady = i18n
  .use(messages)
  .use(initReactI18next)
  .init({
    lng: detectLanguage(),
    fallbackLng: false,
    supportedLngs: [...LANGUAGES],
    ns: ['translation'],
    defaultNS: 'translation',
    nsSeparator: false,
    interpolation: { escapeValue: false }, // React escapes
  });

void i18nReady.then(() => applyLanguage(i18n.language));
i18n.on('languageChanged', applyLanguage);

/** Switches the language and remembers the choice. */
export function changeLanguage(language: Language) {
  rememberLanguage(language);
  void i18n.changeLanguage(language);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : LANGUAGES[0];
}
