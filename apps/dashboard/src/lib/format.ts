import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';

/** Dates and numbers in the chosen language. */
export function useFormat() {
  const { i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  return useMemo(() => {
    const dateTime = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
    const number = new Intl.NumberFormat(language);
    return {
      dateTime: (iso: string) => dateTime.format(new Date(iso)),
      number: (value: number) => number.format(value),
    };
  }, [language]);
}
