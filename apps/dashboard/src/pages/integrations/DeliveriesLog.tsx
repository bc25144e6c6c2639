import { Button, Card, Code, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { WebhookDelivery, WebhookDeliveryAttempt } from '@merma/schema';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { Pager } from '../../components/Pager.tsx';
import { useFormat } from '../../lib/format.ts';
import { DELIVERIES_PAGE_SIZE, deliveriesOptions } from '../../queries.ts';
import { queryClient, trpc } from '../../trpc.ts';
import type { WebhookScopeInput } from './IntegrationPage.tsx';
import { DeliveryStatusBadge } from './WebhookFields.tsx';

const route = getRouteApi('/app/integrations/$id');

/** Every event sent to the endpoint, newest first, with each attempt; paged in the URL (`?page=`). */
export function DeliveriesLog({ scope, manage }: { scope: WebhookScopeInput; manage: boolean }) {
  const { t } = useTranslation();
  const format = useFormat();
  const navigate = useNavigate();
  const page = route.useSearch({ select: (s) => s.page ?? 1 });
  const { data } = useSuspenseQuery(deliveriesOptions(scope, page));
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('integrations.deliveries.resent') });
        return queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );

  const columns: Column<WebhookDelivery>[] = [
    { key: 'event', header: t('integrations.deliveries.columns.event'), render: (d) => <Code>{d.event}</Code> },
    { key: 'status', header: t('integrations.deliveries.columns.status'), render: (d) => <DeliveryStatusBadge status={d.status} /> },
    { key: 'attempts', header: t('integrations.deliveries.columns.attempts'), render: (d) => format.number(d.attempt) },
    {
      key: 'response',
      header: t('integrations.deliveries.columns.response'),
      render: (d) => (d.response_status === null ? <EmptyCell /> : <Code>{d.response_status}</Code>),
    },
    {
      key: 'duration',
      header: t('integrations.deliveries.columns.duration'),
      render: (d) => (d.duration_ms === null ? <EmptyCell /> : t('integrations.deliveries.ms', { ms: d.duration_ms })),
    },
    {
      key: 'error',
      header: t('integrations.deliveries.columns.error'),
      render: (d) =>
        d.error ? (
          <Text size="sm" c="red.9" lineClamp={2} maw={220}>
            {d.error}
          </Text>
        ) : (
          <EmptyCell />
        ),
    },
    { key: 'created', header: t('integrations.deliveries.columns.created'), render: (d) => format.dateTime(d.created_at) },
    {
      key: 'next',
      header: t('integrations.deliveries.columns.nextAttempt'),
      render: (d) => (d.next_attempt_at ? format.dateTime(d.next_attempt_at) : <EmptyCell />),
    },
  ];
  if (manage) {
    columns.push({
      key: 'actions',
      header: t('table.actions'),
      hideHeader: true,
      render: (d) => (
        <Button
          size="xs"
          variant="light"
          aria-label={t('integrations.deliveries.resendNamed', { event: d.event, date: format.dateTime(d.created_at) })}
          loading={resend.isPending && resend.variables?.delivery_id === d.id}
          onClick={() => resend.mutate({ ...scope, delivery_id: d.id })}
        >
          {t('integrations.deliveries.resend')}
        </Button>
      ),
    });
  }

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="deliveries-title">
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} size="h3" id="deliveries-title">
            {t('integrations.deliveries.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('integrations.deliveries.description')}
          </Text>
        </Stack>
        <DataTable
          caption={t('integrations.deliveries.title')}
          columns={columns}
          rows={data.data}
          rowKey={(d) => d.id}
          rowLabel={(d) => `${d.event} ${format.dateTime(d.created_at)}`}
          empty={t('integrations.deliveries.empty')}
          renderExpanded={(d) => <Attempts attempts={d.attempts} />}
          minWidth={1040}
        />
        <Pager
          offset={data.pagination.offset}
          limit={DELIVERIES_PAGE_SIZE}
          total={data.pagination.total}
          hasMore={data.pagination.has_more}
          onChange={(offset) =>
            navigate({ to: '.', search: (prev) => ({ ...prev, page: offset / DELIVERIES_PAGE_SIZE + 1 }), resetScroll: false })
          }
        />
      </Stack>
    </Card>
  );
}

/** Every HTTP attempt of one delivery, oldest first. */
function Attempts({ attempts }: { attempts: WebhookDeliveryAttempt[] }) {
  const { t } = useTranslation();
  const format = useFormat();
  if (attempts.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('integrations.deliveries.noAttempts')}
      </Text>
    );
  }
  return (
    <Table withTableBorder fz="sm" bg="white">
      <Table.Caption>{t('integrations.deliveries.attemptsCaption')}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('integrations.deliveries.attempt.number')}</Table.Th>
          <Table.Th>{t('integrations.deliveries.attempt.time')}</Table.Th>
          <Table.Th>{t('integrations.deliveries.columns.response')}</Table.Th>
          <Table.Th>{t('integrations.deliveries.columns.duration')}</Table.Th>
          <Table.Th>{t('integrations.deliveries.columns.error')}</Table.Th>
          <Table.Th>{t('integrations.deliveries.columns.nextAttempt')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {attempts.map((a) => (
          <Table.Tr key={a.attempt}>
            <Table.Td>{format.number(a.attempt)}</Table.Td>
            <Table.Td>{format.dateTime(a.attempted_at)}</Table.Td>
            <Table.Td>{a.response_status === null ? <EmptyCell /> : <Code>{a.response_status}</Code>}</Table.Td>
            <Table.Td>{t('integrations.deliveries.ms', { ms: a.duration_ms })}</Table.Td>
            <Table.Td>{a.error ?? <EmptyCell />}</Table.Td>
            <Table.Td>{a.next_attempt_at ? format.dateTime(a.next_attempt_at) : <EmptyCell />}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
