import { NativeSelect } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../i18n/index.ts';

/** Chooses the dashboard's language (remembered in this browser). A native select: light and accessible. */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  return (
    <NativeSelect
      aria-label={t('language.label')}
      data={LANGUAGES.map((language) => ({ value: language, label: t(`language.names.${language}`) }))}
      value={i18n.resolvedLanguage ? currentLanguage() : LANGUAGES[0]}
      onChange={(event) => changeLanguage(event.currentTarget.value as Language)}
      size="xs"
      w={110}
    />
  );
}
