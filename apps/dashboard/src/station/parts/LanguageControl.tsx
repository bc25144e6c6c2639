import { SegmentedControl } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../../i18n/index.ts';
import { TALL_SEGMENTS } from './targets.ts';

export function LanguageControl() {
  const { t, i18n } = useTranslation('station');
  return (
    <SegmentedControl
      aria-label={t('station.header.language')}
      size="md"
      styles={TALL_SEGMENTS}
      value={i18n.resolvedLanguage ?? currentLanguage()}
      onChange={(v) => changeLanguage(v as Language)}
      data={LANGUAGES.map((l) => ({ value: l, label: l.toUpperCase() }))}
    />
  );
}
