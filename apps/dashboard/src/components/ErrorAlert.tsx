import { Alert, List } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorInfo } from '../lib/errors.ts';

type Props = {
  error: unknown;
  /** Replaces the standard sentence for the error's code. */
  message?: ReactNode;
  children?: ReactNode;
};

/** A failed call, in words: the translated meaning of its code and the fields the server named. */
export function ErrorAlert({ error, message, children }: Props) {
  const { t } = useTranslation();
  const info = errorInfo(error);
  return (
    <Alert color="red" variant="light" icon={<IconAlertCircle aria-hidden />} title={t('errors.title')} role="alert">
      {message ?? t(`errors.codes.${info.code}`)}
      {info.details.length > 0 && (
        <List size="sm" mt="xs">
          {info.details.map((d) => (
            <List.Item key={`${d.path}:${d.message}`}>{d.path ? `${d.path}: ${d.message}` : d.message}</List.Item>
          ))}
        </List>
      )}
      {children}
    </Alert>
  );
}
