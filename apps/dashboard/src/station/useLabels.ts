import type { StationSetup } from '@merma/schema/dashboard';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { formatKg } from '../lib/decimal.ts';

/** The catalogue's names in the station's language: the server's (Spanish) names are the fallback. */
export function useLabels(setup: StationSetup | undefined) {
  const { t, i18n } = useTranslation('station');
  // The food categories' names are the dashboard's own (its default namespace).
  const { t: dashboard } = useTranslation();
  return useMemo(() => {
    const causes = new Map(setup?.causes.map((c) => [c.id, c]) ?? []);
    const destinations = new Map(setup?.destinations.map((d) => [d.id, d]) ?? []);
    return {
      category: (key: string) => dashboard(`categories.${key}` as 'categories.meat', { defaultValue: key }),
      cause: (id: string | null | undefined) => {
        if (!id) return t('station.steps.noCause');
        const c = causes.get(id);
        return c ? t(`station.causes.${c.icono}` as 'station.title', { defaultValue: c.nombre }) : id;
      },
      destination: (id: string) => {
        const d = destinations.get(id);
        return d ? t(`station.destinations.${d.code}` as 'station.title', { defaultValue: d.nombre }) : id;
      },
      /** One weighing, to the gram. */
      kg: (kg: number) => formatKg(kg, i18n.resolvedLanguage ?? 'es', 'weighing'),
      /** A sum of weighings (today's, a session's), as the dashboard shows totals. */
      totalKg: (kg: number) => formatKg(kg, i18n.resolvedLanguage ?? 'es'),
    };
  }, [setup, t, dashboard, i18n.resolvedLanguage]);
}

export type Labels = ReturnType<typeof useLabels>;
