import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The organisation has no establishment yet: nothing to show per establishment. */
export function NoEstablishment() {
  const { t } = useTranslation();
  return <Alert color="gray">{t('shell.noEstablishment')}</Alert>;
}
