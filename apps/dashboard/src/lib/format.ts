import { createContext, useContext, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatLocale } from '../i18n/index.ts';
import { formatKg, numberFormat } from './decimal.ts';

/** A calendar date `YYYY-MM-DD` as a Date at noon UTC, so no time zone moves it to another day. */
const calendarDate = (date: string) => new Date(`${date}T12:00:00Z`);

/**
 * The time zone instants are shown in: the establishment's chosen in the shell (AppLayout provides
 * it), so that a key's "last used", a plan's "generated" and an audit entry read on the kitchen's
 * clock wherever the reader's browser is. Outside the app (sign-in, invitations) there is none and
 * the browser's zone is used.
 */
export const DisplayTimeZone = createContext<string | undefined>(undefined);

/**
 * Dates and numbers in the chosen language, written the way the browser's region writes it when
 * the browser speaks that language (`en-GB` → 24/11/2026 and 24 Nov, not Nov 24; see `formatLocale`).
 *
 * - Calendar dates (`YYYY-MM-DD`, already in the establishment's time zone) are shown as such.
 * - Instants (`created_at`) are shown in the establishment's time zone (`timeZone`, else the one
 *   the shell provides) and always say which zone (`24 nov 2026, 10:30 CET`): times of several
 *   zones are never shown side by side without a label.
 *
 * Kilograms, one rule for the whole dashboard and the station (`formatKg`, lib/decimal.ts):
 * - `kg`: every figure that sums, averages or predicts weights (totals, charts, forecasts,
 *   shift totals): at most one decimal (`679,5 kg` beside `559 kg`); an amount under 1 kg keeps
 *   its first significant digit (`0,04 kg`), so that a small amount never reads "0 kg".
 * - `kgPrecise`: to the gram (`1,235 kg`), only where one weighing is shown as weighed: a record's
 *   own weight in the records table.
 */
export function useFormat(timeZone?: string) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  const provided = useContext(DisplayTimeZone);
  const zone = timeZone ?? provided;
  return useMemo(() => {
    const locale = formatLocale(language);
    const f = formats(locale, zone);
    return {
      /** The locale every figure is written in (`es`, `en-GB`…), for formats a page builds itself. */
      language: locale,
      /** The time zone instants are shown in (undefined: the browser's). */
      timeZone: zone,
      /** An instant, in the establishment's time zone, with the zone's name. */
      dateTime: (iso: string) => f.dateTime().format(new Date(iso)),
      number: (value: number) => f.number().format(value),
      /** A total, average or predicted weight: at most one decimal (see above). */
      kg: (value: number) => formatKg(value, locale),
      /** One weighing, to the gram: only the records table. */
      kgPrecise: (value: number) => formatKg(value, locale, 'weighing'),
      percent: (share: number) => f.percent().format(share),
      /** An amount in euros (a product's price or cost). */
      euros: (value: number) => f.euros().format(value),
      /** A calendar date, short (`23 nov`). */
      day: (date: string) => f.day().format(calendarDate(date)),
      /** A calendar date in full, as a document writes it (`24 de noviembre de 2026`). */
      date: (value: string) => f.date().format(calendarDate(value)),
      /** A calendar date with weekday and year. */
      longDay: (date: string) => f.longDay().format(calendarDate(date)),
      /** A period label of the analytics (`2026-11-23`, `2026-W48`, `2026-11`) for a chart axis. */
      period: (label: string) => {
        if (/^\d{4}-\d{2}-\d{2}$/.test(label)) return f.day().format(calendarDate(label));
        if (/^\d{4}-\d{2}$/.test(label)) return f.month().format(calendarDate(`${label}-01`));
        const week = /^\d{4}-W(\d{2})$/.exec(label)?.[1];
        return week ? t('format.week', { week: Number(week) }) : label;
      },
    };
  }, [language, zone, t]);
}

/** A value made the first time it is asked for, then kept. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

/**
 * The Intl formats of a locale and a time zone, each made when first used and kept for the page's
 * life: every component that writes a figure calls `useFormat`, and making a format costs far
 * more than using it (the first one with a time zone loads the browser's zone data), so a phone
 * made dozens of them at a page's first render where a few are used.
 */
const formatsByLocale = new Map<string, ReturnType<typeof makeFormats>>();
function formats(locale: string, zone: string | undefined) {
  const key = `${locale}\u0000${zone ?? ''}`;
  let made = formatsByLocale.get(key);
  if (!made) {
    made = makeFormats(locale, zone);
    formatsByLocale.set(key, made);
  }
  return made;
}

function makeFormats(locale: string, zone: string | undefined) {
  const dateFormat = (options: Intl.DateTimeFormatOptions) => once(() => new Intl.DateTimeFormat(locale, options));
  return {
    dateTime: dateFormat({
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
      ...(zone ? { timeZone: zone } : {}),
    }),
    number: once(() => numberFormat(locale)),
    percent: once(() => numberFormat(locale, { style: 'percent', maximumFractionDigits: 1 })),
    // Products' prices are in euros (products.price); two decimals, as a price tag.
    euros: once(() => numberFormat(locale, { style: 'currency', currency: 'EUR' })),
    day: dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' }),
    longDay: dateFormat({ weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }),
    month: dateFormat({ month: 'short', year: 'numeric', timeZone: 'UTC' }),
    date: dateFormat({ day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }),
  };
}
