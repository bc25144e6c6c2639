import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Mode } from '../lib/search.ts';

/** Live (real data) or test mode, coloured as everywhere in the dashboard. */
export function ModeBadge({ mode }: { mode: Mode }) {
  const { t } = useTranslation();
  return (
    <Badge miw="max-content" color={mode === 'live' ? 'green' : 'orange'} variant="light">
      {t(`mode.${mode}`)}
    </Badge>
  );
}
