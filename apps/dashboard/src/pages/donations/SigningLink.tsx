import { Alert, Button, CopyButton, Group, Loader, Stack, Text, Textarea } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../../lib/format.ts';

// The QR encoder is loaded when a link is shown, not with the page.
const QrCode = lazy(() => import('../../components/QrCode.tsx').then((m) => ({ default: m.QrCode })));

type Props = {
  link: { url: string; expires_at: string };
  /** What the link lets its holder do, said in the warning (a donation's answer, a certificate's signature). */
  warning: string;
  /** The zone its expiry is shown in; the page's when absent. */
  timezone?: string;
  onDone: () => void;
};

/**
 * An entity's signing link, shown this once (only its hash is kept): the address to copy and send,
 * its QR code to scan, and until when it works. A new link replaces it. Used for a donation's
 * handover note and for the year's certificate of donations.
 */
export function SigningLink({ link, warning, timezone, onDone }: Props) {
  const { t } = useTranslation('donations');
  const { t: common } = useTranslation();
  const format = useFormat(timezone);
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle aria-hidden />} title={common('secret.warningTitle')}>
        {warning}
      </Alert>
      <Group align="flex-start" gap="lg" wrap="wrap">
        <Suspense fallback={<Loader size="sm" />}>
          <QrCode text={link.url} label={t('donations.link.qr')} size={200} />
        </Suspense>
        <Stack gap="xs" flex={1} miw={240}>
          <Textarea
            label={t('donations.link.url')}
            value={link.url}
            readOnly
            autosize
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
            onFocus={(event) => event.currentTarget.select()}
            data-testid="signing-link"
          />
          <Group justify="space-between" gap="xs">
            <Text size="sm" data-testid="signing-link-expires">
              {t('donations.link.expires', { date: format.dateTime(link.expires_at) })}
            </Text>
            <CopyButton value={link.url}>
              {({ copied, copy }) => (
                <Button
                  variant={copied ? 'filled' : 'default'}
                  color={copied ? 'teal' : undefined}
                  leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                  onClick={copy}
                >
                  {copied ? common('common.copied') : common('common.copy')}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Stack>
      </Group>
      <Group justify="flex-end">
        <Button onClick={onDone}>{t('donations.link.done')}</Button>
      </Group>
    </Stack>
  );
}
