import { Button, Text } from '@mantine/core';
import { IconFileZip } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from '../../i18n/index.ts';
import { useScope } from '../../lib/scope.ts';
import { YearCard } from './YearCard.tsx';

/**
 * The inspection dossier of a year as one download (apps/server/src/modules/compliance/dossier.ts):
 * a plain link with the session cookie, as the records' CSV export is, to the same file the API
 * serves for this establishment, mode and year, its texts in the page's language.
 */
export function DossierCard({ establishmentId, currentYear }: { establishmentId: string; currentYear: number }) {
  const { t } = useTranslation('plan');
  const { livemode } = useScope();
  const [year, setYear] = useState(currentYear);
  const href = `/export/dossier.zip?${new URLSearchParams({
    establishment_id: establishmentId,
    mode: livemode ? 'live' : 'test',
    year: String(year),
    lang: currentLanguage(),
  })}`;
  return (
    <YearCard
      id="dossier-title"
      testId="dossier"
      title={t('plan.dossier.title')}
      yearLabel={t('plan.dossier.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      <Text size="sm">{t('plan.dossier.intro')}</Text>
      <Button component="a" href={href} download variant="default" leftSection={<IconFileZip size={16} aria-hidden />} w="fit-content">
        {t('plan.dossier.download', { year })}
      </Button>
    </YearCard>
  );
}
