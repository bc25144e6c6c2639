import { ActionIcon, Card, Code, CopyButton, Group, Skeleton, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { trpc } from '../../trpc.ts';

/** Where ERP/POS systems post their events, with a sample body to copy. */
export function InboundCard({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation('integrations');
  const inbound = useQuery(trpc.inbound.endpoint.queryOptions({ establishment_id: establishmentId }));
  const sample = inbound.data ? JSON.stringify(inbound.data.sample, null, 2) : '';

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="inbound-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} size="h3" id="inbound-title">
            {t('integrations.inbound.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('integrations.inbound.description')}
          </Text>
        </Stack>
        {inbound.error ? (
          <ErrorAlert error={inbound.error} />
        ) : !inbound.data ? (
          <Skeleton h={160} />
        ) : (
          <>
            <Group align="flex-end" gap="xs" wrap="nowrap">
              <TextInput label={t('integrations.inbound.url')} value={inbound.data.url} readOnly flex={1} />
              <CopyTextButton value={inbound.data.url} label={t('integrations.inbound.copyUrl')} />
            </Group>
            <Text size="sm">
              {t('integrations.inbound.events')}{' '}
              {inbound.data.events.map((event, i) => (
                <span key={event}>
                  {i > 0 && ' '}
                  <Code>{event}</Code>
                </span>
              ))}
            </Text>
            <Stack gap={4}>
              <Group justify="space-between">
                <Text size="sm" fw={500}>
                  {t('integrations.inbound.sample')}
                </Text>
                <CopyTextButton value={sample} label={t('integrations.inbound.copySample')} />
              </Group>
              {/* Focusable: on a narrow screen the sample scrolls sideways, with the keyboard too. */}
              <Code block tabIndex={0}>
                {sample}
              </Code>
            </Stack>
          </>
        )}
      </Stack>
    </Card>
  );
}

function CopyTextButton({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? t('common.copied') : label} withArrow>
          <ActionIcon variant="default" size="lg" onClick={copy} aria-label={label}>
            {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}
