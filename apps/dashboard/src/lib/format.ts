import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** A calendar date `YYYY-MM-DD` as a Date at noon UTC, so no time zone moves it to another day. */
const calendarDate = (date: string) => new Date(`${date}T12:00:00Z`);

/**
 * Dates and numbers in the chosen language. Calendar dates (`YYYY-MM-DD`, already in the
 * establishment's time zone) are shown as such; instants (`created_at`) in the establishment's
 * time zone when one is given, so everyone sees a record at the time the kitchen saw it.
 */
export function useFormat(timeZone?: string) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  return useMemo(() => {
    const zone = timeZone ? { timeZone } : {};
    const dateTime = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', ...zone });
    const number = new Intl.NumberFormat(language);
    const kg = new Intl.NumberFormat(language, { style: 'unit', unit: 'kilogram', maximumFractionDigits: 1 });
    const kgPrecise = new Intl.NumberFormat(language, { style: 'unit', unit: 'kilogram', maximumFractionDigits: 3 });
    const percent = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 });
    const day = new Intl.DateTimeFormat(language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
    const longDay = new Intl.DateTimeFormat(language, {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const month = new Intl.DateTimeFormat(language, { month: 'short', year: 'numeric', timeZone: 'UTC' });
    const date = new Intl.DateTimeFormat(language, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    return {
      language,
      dateTime: (iso: string) => dateTime.format(new Date(iso)),
      number: (value: number) => number.format(value),
      kg: (value: number) => kg.format(value),
      kgPrecise: (value: number) => kgPrecise.format(value),
      percent: (share: number) => percent.format(share),
      /** A calendar date, short (`23 nov`). */
      day: (date: string) => day.format(calendarDate(date)),
      /** A calendar date in full, as a document writes it (`24 de noviembre de 2026`). */
      date: (value: string) => date.format(calendarDate(value)),
      /** A calendar date with weekday and year. */
      longDay: (date: string) => longDay.format(calendarDate(date)),
      /** A period label of the analytics (`2026-11-23`, `2026-W48`, `2026-11`) for a chart axis. */
      period: (label: string) => {
        if (/^\d{4}-\d{2}-\d{2}$/.test(label)) return day.format(calendarDate(label));
        if (/^\d{4}-\d{2}$/.test(label)) return month.format(calendarDate(`${label}-01`));
        const week = /^\d{4}-W(\d{2})$/.exec(label)?.[1];
        return week ? t('format.week', { week: Number(week) }) : label;
      },
    };
  }, [language, timeZone, t]);
}
