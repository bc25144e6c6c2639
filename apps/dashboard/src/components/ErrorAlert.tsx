import { Alert, List } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { detailText, errorInfo } from '../lib/errors.ts';

type Props = {
  error: unknown;
  /** Replaces the standard sentence for the error's code. */
  message?: ReactNode;
  children?: ReactNode;
};

/** A failed call, in words: the translated meaning of its code and the problems the server named (by their codes when given). */
export function ErrorAlert({ error, message, children }: Props) {
  const { t, i18n } = useTranslation();
  const info = errorInfo(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle aria-hidden />} title={t('errors.title')} role="alert">
      {message ?? t(`errors.codes.${info.code}`)}
      {info.details.length > 0 && (
        <List size="sm" mt="xs">
          {info.details.map((d) => (
            <List.Item key={`${d.path}:${d.message}`}>{detailText(i18n, d)}</List.Item>
          ))}
        </List>
      )}
      {children}
    </Alert>
  );
}
