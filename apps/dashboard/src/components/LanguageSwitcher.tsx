import { NativeSelect } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { changeLanguage, currentLanguage, LANGUAGES, type Language } from '../i18n/index.ts';
import { trpc } from '../trpc.ts';

/**
 * Chooses the dashboard's language (remembered in this browser). A native select: light and
 * accessible. Signed in (`account`), the choice is also kept as the language of the person's
 * e-mails (password resets, webhook notices).
 */
export function LanguageSwitcher({ account = false }: { account?: boolean }) {
  const { t, i18n } = useTranslation();
  const save = useMutation(trpc.accounts.setLanguage.mutationOptions());
  return (
    <NativeSelect
      aria-label={t('language.label')}
      data={LANGUAGES.map((language) => ({ value: language, label: t(`language.names.${language}`) }))}
      value={i18n.resolvedLanguage ? currentLanguage() : LANGUAGES[0]}
      onChange={(event) => {
        const language = event.currentTarget.value as Language;
        changeLanguage(language);
        if (account) save.mutate({ language });
      }}
      size="xs"
      w={110}
    />
  );
}
