import { Button, Card, Code, Stack, Table, Text, Title } from '@mantine/core';
import type { WebhookDelivery, WebhookDeliveryAttempt } from '@merma/schema';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { Pager } from '../../components/Pager.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { DELIVERIES_PAGE_SIZE, deliveriesOptions } from '../../queries.ts';
import { queryClient, trpc } from '../../trpc.ts';
import type { WebhookScopeInput } from './IntegrationPage.tsx';
import { DeliveryStatusBadge } from './WebhookFields.tsx';

const route = getRouteApi('/app/integrations/$id');

/** Every event sent to the endpoint, newest first, with each attempt; paged in the URL (`?page=`). */
export function DeliveriesLog({ scope, manage }: { scope: WebhookScopeInput; manage: boolean }) {
  const { t } = useTranslation('integrations');
  const { t: common } = useTranslation();
  const format = useFormat();
  const navigate = useNavigate();
  const page = route.useSearch({ select: (s) => s.page ?? 1 });
  const { data } = useSuspenseQuery({ ...deliveriesOptions(scope, page), refetchInterval: whilePending });
  // A delivery that settles may have deactivated the endpoint (a 410, the fifth failure in a row):
  // the page's status and banner are read again when the log's statuses change.
  const settled = data.data.map((d) => `${d.id}:${d.status}:${d.attempt}`).join(',');
  const seen = useRef(settled);
  useEffect(() => {
    if (seen.current === settled) return;
    seen.current = settled;
    void queryClient.invalidateQueries(trpc.webhooks.get.queryFilter(scope));
  }, [settled, scope]);
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('integrations.deliveries.resent') });
        return queryClient.invalidateQueries(trpc.webhooks.deliveries.pathFilter());
      },
    }),
  );

  // Sized to fit the content column at 1280 px with the resend button: the answer's duration shares
  // the response cell, and an error without an HTTP status stands in for it (the full error, the
  // payload and every answer are in the expanded row, as in Stripe's and Svix's logs).
  const columns: Column<WebhookDelivery>[] = [
    { key: 'event', header: t('integrations.deliveries.columns.event'), render: (d) => <Code>{d.event}</Code> },
    { key: 'status', header: t('integrations.deliveries.columns.status'), render: (d) => <DeliveryStatusBadge status={d.status} /> },
    { key: 'attempts', header: t('integrations.deliveries.columns.attempts'), render: (d) => format.number(d.attempt) },
    {
      key: 'response',
      header: t('integrations.deliveries.columns.response'),
      render: (d) =>
        d.response_status !== null ? (
          <Text span size="sm" style={{ whiteSpace: 'nowrap' }}>
            <Code>{d.response_status}</Code>
            {d.duration_ms !== null && ` · ${t('integrations.deliveries.ms', { ms: d.duration_ms })}`}
          </Text>
        ) : d.error ? (
          <Text size="sm" c="red.9" lineClamp={2} maw={200}>
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
      header: common('table.actions'),
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
          renderExpanded={(d) => <DeliveryDetails delivery={d} />}
          minWidth={760}
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

/**
 * How often the log asks again: every 2 s while a delivery waits for an attempt due within the
 * minute (a test event just sent, a resend, a first attempt), every minute while the only pending
 * ones wait for a later retry (up to 12 h away), and never once none is pending.
 */
function whilePending(query: { state: { data?: { data: WebhookDelivery[] } | undefined } }): number | false {
  const pending = query.state.data?.data.filter((d) => d.status === 'pending') ?? [];
  if (pending.length === 0) return false;
  const soon = Date.now() + 60_000;
  return pending.some((d) => d.next_attempt_at === null || Date.parse(d.next_attempt_at) <= soon) ? 2_000 : 60_000;
}

/** A delivery's payload, then its attempts, each with the start of the receiver's answer. */
function DeliveryDetails({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation('integrations');
  return (
    <Stack gap="sm" maw="100%">
      <Body label={t('integrations.deliveries.payload')} text={JSON.stringify(delivery.payload, null, 2)} />
      <Attempts attempts={delivery.attempts} />
      {delivery.attempts.map((a) => (
        <Answer key={a.attempt} attempt={a} />
      ))}
    </Stack>
  );
}

/** What the receiver answered to one attempt (as much of it as is kept). */
function Answer({ attempt }: { attempt: WebhookDeliveryAttempt }) {
  const { t } = useTranslation('integrations');
  const label =
    attempt.response_status === null
      ? t('integrations.deliveries.responseBodyNoStatus', { attempt: attempt.attempt })
      : t('integrations.deliveries.responseBody', { attempt: attempt.attempt, status: attempt.response_status });
  if (attempt.response_body === null) {
    return (
      <Text size="sm" c="dimmed">
        {label}: {t('integrations.deliveries.noAnswer')}
      </Text>
    );
  }
  return (
    <Body
      label={label}
      text={attempt.response_body === '' ? null : attempt.response_body}
      note={attempt.response_body_truncated ? t('integrations.deliveries.truncated') : undefined}
    />
  );
}

/**
 * A block of text (a payload, an answer) under its label, scrolling inside a bounded box. The box
 * is focusable and named by its label, so that it can be scrolled with the keyboard too.
 */
function Body({ label, text, note }: { label: string; text: string | null; note?: string | undefined }) {
  const { t } = useTranslation('integrations');
  const id = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600} id={id}>
        {label}
      </Text>
      {text === null ? (
        <Text size="sm" c="dimmed">
          {t('integrations.deliveries.emptyBody')}
        </Text>
      ) : (
        <Code
          block
          role="region"
          aria-labelledby={id}
          tabIndex={0}
          mah={240}
          style={{ overflow: 'auto', whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
        >
          {text}
        </Code>
      )}
      {note && (
        <Text size="xs" c="dimmed">
          {note}
        </Text>
      )}
    </Stack>
  );
}

/** Every HTTP attempt of one delivery, oldest first. */
function Attempts({ attempts }: { attempts: WebhookDeliveryAttempt[] }) {
  const { t } = useTranslation('integrations');
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
