import { Button, Card, Group, Select, Stack, Text, Title } from '@mantine/core';
import type { WebhookSubscription } from '@merma/schema';
import { IconRefresh } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretFormModal, type ShownSecret, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { useFormat } from '../../lib/format.ts';
import { trpc } from '../../trpc.ts';
import type { WebhookScopeInput } from './IntegrationPage.tsx';

/** How long the replaced secret keeps signing beside the new one (seconds). The server's default is a day. */
export const GRACE_PERIODS = [
  { seconds: 0, key: 'none' },
  { seconds: 3_600, key: 'hour' },
  { seconds: 86_400, key: 'day' },
  { seconds: 604_800, key: 'week' },
] as const;

export function RotateSecret({
  scope,
  subscription,
  manage,
}: {
  scope: WebhookScopeInput;
  subscription: WebhookSubscription;
  manage: boolean;
}) {
  const { t } = useTranslation('integrations');
  const format = useFormat();
  const [open, setOpen] = useState(false);
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="secret-title">
      <Stack gap="sm">
        <Title order={2} size="h3" id="secret-title">
          {t('integrations.secret.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('integrations.secret.description')}
        </Text>
        {subscription.previous_secret_expires_at && (
          <Text size="sm">
            {t('integrations.secret.previousUntil', { date: format.dateTime(subscription.previous_secret_expires_at) })}
          </Text>
        )}
        {manage && (
          <Group>
            <Button variant="default" leftSection={<IconRefresh size={16} aria-hidden />} onClick={() => setOpen(true)}>
              {t('integrations.secret.rotate')}
            </Button>
          </Group>
        )}
      </Stack>
      {open && <RotateModal scope={scope} onClose={() => setOpen(false)} />}
    </Card>
  );
}

function RotateModal({ scope, onClose }: { scope: WebhookScopeInput; onClose: () => void }) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const [grace, setGrace] = useState<string>('86400');
  const { mutation: rotate, result: rotated } = useMutationKeepingResult(
    trpc.webhooks.rotateSecret.mutationOptions(),
    trpc.webhooks.get.queryFilter(scope),
  );
  const shown: ShownSecret | null = rotated
    ? {
        title: t('integrations.secret.newTitle'),
        label: t('integrations.secret.label'),
        secret: rotated.secret,
        warning: t('integrations.secret.warning'),
      }
    : null;
  return (
    <SecretFormModal onClose={onClose} title={t('integrations.secret.rotate')} shown={shown}>
      <Stack gap="md">
        {rotate.error && <ErrorAlert error={rotate.error} />}
        <Text size="sm">{t('integrations.secret.rotateExplain')}</Text>
        <Select
          label={t('integrations.secret.grace')}
          data={GRACE_PERIODS.map((g) => ({ value: String(g.seconds), label: t(`integrations.secret.graceOptions.${g.key}`) }))}
          value={grace}
          onChange={(value) => setGrace(value ?? '86400')}
          allowDeselect={false}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {common('common.cancel')}
          </Button>
          <Button color="red" loading={rotate.isPending} onClick={() => rotate.mutate({ ...scope, grace_period_seconds: Number(grace) })}>
            {t('integrations.secret.rotateConfirm')}
          </Button>
        </Group>
      </Stack>
    </SecretFormModal>
  );
}
