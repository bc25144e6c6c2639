import { Button, Code, Group, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { WebhookSubscription } from '@merma/schema';
import { IconPlus } from '@tabler/icons-react';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { ModeBadge } from '../../components/ModeBadge.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { trpc } from '../../trpc.ts';
import { AddEndpointModal } from './AddEndpointModal.tsx';
import { InboundCard } from './InboundCard.tsx';
import { VendorIntegrations } from './VendorIntegrations.tsx';
import { WebhookStatusBadge } from './WebhookFields.tsx';

export function IntegrationsPage() {
  const { t } = useTranslation('integrations');
  const { me, establishment, mode, livemode } = useScope();
  const [adding, addModal] = useDisclosure(false);
  const manage = can.manageIntegrations(me.role);

  return (
    <Page
      title={t('integrations.title')}
      description={t('integrations.description')}
      actions={
        manage &&
        establishment && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={addModal.open}>
            {t('integrations.add.button')}
          </Button>
        )
      }
    >
      {establishment ? (
        <>
          <Stack gap="sm" component="section" aria-labelledby="endpoints-title">
            <Group gap="sm">
              <Title order={2} size="h3" id="endpoints-title">
                {t('integrations.endpoints')}
              </Title>
              <ModeBadge mode={mode} />
            </Group>
            <Endpoints establishmentId={establishment.id} livemode={livemode} />
          </Stack>
          <VendorIntegrations establishmentId={establishment.id} mode={mode} manage={manage} />
          <InboundCard establishmentId={establishment.id} />
          {adding && <AddEndpointModal onClose={addModal.close} establishmentId={establishment.id} livemode={livemode} />}
        </>
      ) : (
        <NoEstablishment />
      )}
    </Page>
  );
}

function Endpoints({ establishmentId, livemode }: { establishmentId: string; livemode: boolean }) {
  const { t } = useTranslation('integrations');
  const format = useFormat();
  const { data: subscriptions } = useSuspenseQuery(trpc.webhooks.list.queryOptions({ establishment_id: establishmentId, livemode }));

  const columns: Column<WebhookSubscription>[] = [
    {
      key: 'url',
      header: t('integrations.columns.url'),
      render: (s) => (
        <Stack gap={2}>
          <AnchorLink to="/integrations/$id" params={{ id: s.id }} style={{ wordBreak: 'break-all' }}>
            {s.url}
          </AnchorLink>
          {s.description && (
            <Text size="xs" c="dimmed">
              {s.description}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'status', header: t('integrations.columns.status'), render: (s) => <WebhookStatusBadge status={s.status} /> },
    {
      key: 'events',
      header: t('integrations.columns.events'),
      render: (s) => (
        <Group gap={4} maw={320}>
          {s.events.map((e) => (
            <Code key={e}>{e}</Code>
          ))}
        </Group>
      ),
    },
    {
      key: 'failures',
      header: t('integrations.columns.failures'),
      render: (s) => (
        <Text size="sm" c={s.consecutive_failures > 0 ? 'red.9' : undefined}>
          {format.number(s.consecutive_failures)}
        </Text>
      ),
    },
    { key: 'created_at', header: t('integrations.columns.createdAt'), render: (s) => format.dateTime(s.created_at) },
  ];

  return (
    <DataTable
      caption={t('integrations.endpoints')}
      columns={columns}
      rows={subscriptions}
      rowKey={(s) => s.id}
      empty={t('integrations.empty')}
      minWidth={860}
    />
  );
}
