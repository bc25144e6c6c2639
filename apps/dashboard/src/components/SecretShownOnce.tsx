import { Alert, Button, CopyButton, Group, Stack, Textarea, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

type Props = {
  /** The input's label, e.g. "API key" or "Signing secret". */
  label: string;
  secret: string;
  /** Why it matters that the secret is kept now. */
  warning: string;
  /** The deliberate way out: the person says they have stored the secret. */
  onDone: () => void;
  /** Wraps a long secret (a URL holding a token) over several lines instead of scrolling it in one. */
  multiline?: boolean;
};

/**
 * A secret the server shows once (a new API key, a webhook signing secret): read-only, with a copy
 * button, a warning, and one explicit "I have copied it" button to leave. Its modal must not close
 * by a click outside or Escape (see `secretModalProps`).
 */
export function SecretShownOnce({ label, secret, warning, onDone, multiline = false }: Props) {
  const { t } = useTranslation();
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={t('secret.warningTitle')}>
        {warning}
      </Alert>
      <Group align="flex-end" gap="xs" wrap="nowrap">
        {multiline ? (
          <Textarea
            label={label}
            value={secret}
            readOnly
            autosize
            flex={1}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
            onFocus={(event) => event.currentTarget.select()}
            data-testid="secret-value"
          />
        ) : (
          <TextInput
            label={label}
            value={secret}
            readOnly
            flex={1}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            onFocus={(event) => event.currentTarget.select()}
            data-testid="secret-value"
          />
        )}
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button
              variant={copied ? 'filled' : 'default'}
              color={copied ? 'teal' : undefined}
              leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
              onClick={copy}
            >
              {copied ? t('common.copied') : t('common.copy')}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Group justify="flex-end">
        <Button onClick={onDone}>{t('secret.done')}</Button>
      </Group>
    </Stack>
  );
}

/** Props for a Modal while it shows a secret: only the "I have copied it" button closes it. */
export const secretModalProps = {
  closeOnClickOutside: false,
  closeOnEscape: false,
  withCloseButton: false,
} as const;
