import { Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { Session, Shift } from '@merma/schema';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { Pager } from '../../components/Pager.tsx';
import { useFormat } from '../../lib/format.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';

export const SESSIONS_PAGE_SIZE = 20;
type Scope = { establishment_id: string; livemode: boolean };

/**
 * The establishment's work shifts (a record made without a shift joins the one in progress) and its
 * registration sessions — a closing count, an inventory — with their record count and kg.
 */
export function ShiftsPage() {
  const { t } = useTranslation();
  const { establishment, livemode } = useScope();
  if (!establishment) {
    return (
      <Page title={t('shifts.title')}>
        <NoEstablishment />
      </Page>
    );
  }
  const scope = { establishment_id: establishment.id, livemode };
  return (
    <Page title={t('shifts.title')} description={t('shifts.description')}>
      <Shifts scope={scope} />
      <Sessions scope={scope} timezone={establishment.timezone} />
    </Page>
  );
}

/** Whether a shift runs past midnight (ends before it starts). */
const overnight = (s: Pick<Shift, 'start_time' | 'end_time'>) => s.end_time < s.start_time;

function Shifts({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const { me } = useScope();
  const { data } = useSuspenseQuery(trpc.shifts.list.queryOptions(scope));
  const columns: Column<Shift>[] = [
    { key: 'name', header: t('shifts.columns.name'), render: (s) => s.name },
    {
      key: 'hours',
      header: t('shifts.columns.hours'),
      render: (s) => (
        <Group gap="xs">
          <Text size="sm">{t('shifts.hours', { start: s.start_time, end: s.end_time })}</Text>
          {overnight(s) && (
            <Badge variant="light" color="indigo">
              {t('shifts.overnight')}
            </Badge>
          )}
        </Group>
      ),
    },
  ];
  return (
    <Stack gap="sm" component="section" aria-labelledby="shifts-heading">
      <Title order={2} size="h3" id="shifts-heading">
        {t('shifts.shiftsHeading')}
      </Title>
      <DataTable
        caption={t('shifts.shiftsHeading')}
        columns={columns}
        rows={data}
        rowKey={(s) => s.id}
        empty={t('shifts.empty')}
        minWidth={480}
      />
      {can.manageShifts(me.role) ? (
        <NewShift scope={scope} />
      ) : (
        <Text size="sm" c="dimmed">
          {t('shifts.readOnly')}
        </Text>
      )}
    </Stack>
  );
}

function NewShift({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { name: '', start_time: '', end_time: '' },
    validate: {
      name: (v) => (v.trim() ? null : t('shifts.form.nameRequired')),
      start_time: (v) => (/^\d{2}:\d{2}$/.test(v) ? null : t('shifts.form.timeRequired')),
      end_time: (v, values) =>
        !/^\d{2}:\d{2}$/.test(v) ? t('shifts.form.timeRequired') : v === values.start_time ? t('shifts.form.sameTimes') : null,
    },
  });
  const create = useMutation(
    trpc.shifts.create.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (shift) => {
        notifications.show({ color: 'teal', message: t('shifts.form.created', { name: shift.name }) });
        form.reset();
        await queryClient.invalidateQueries(trpc.shifts.list.pathFilter());
      },
    }),
  );
  return (
    <Card
      withBorder
      padding="md"
      component="form"
      onSubmit={form.onSubmit((values) => create.mutate({ ...scope, shift: values }))}
      aria-labelledby="new-shift"
    >
      <Text fw={600} id="new-shift" mb="xs">
        {t('shifts.form.title')}
      </Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput label={t('shifts.form.name')} {...form.getInputProps('name')} maxLength={100} w={220} />
        <TextInput type="time" label={t('shifts.form.start')} {...form.getInputProps('start_time')} w={140} />
        <TextInput type="time" label={t('shifts.form.end')} {...form.getInputProps('end_time')} w={140} />
        <Button type="submit" mt={25} loading={create.isPending}>
          {t('shifts.form.submit')}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mt="xs">
        {t('shifts.form.hint')}
      </Text>
      {create.error && <ErrorAlert error={create.error} />}
    </Card>
  );
}

function Sessions({ scope, timezone }: { scope: Scope; timezone: string }) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const [offset, setOffset] = useState(0);
  const { data: shifts } = useSuspenseQuery(trpc.shifts.list.queryOptions(scope));
  const first = useSuspenseQuery(trpc.shifts.sessions.queryOptions({ ...scope, limit: SESSIONS_PAGE_SIZE, offset: 0 }));
  const later = useQuery({ ...trpc.shifts.sessions.queryOptions({ ...scope, limit: SESSIONS_PAGE_SIZE, offset }), enabled: offset > 0 });
  const page = offset === 0 ? first.data : later.data;
  const columns: Column<Session>[] = [
    { key: 'name', header: t('sessions.columns.name'), render: (s) => s.name },
    {
      key: 'status',
      header: t('sessions.columns.status'),
      render: (s) => (
        <Badge variant="light" color={s.status === 'open' ? 'blue' : 'gray'}>
          {t(`sessions.status.${s.status}`)}
        </Badge>
      ),
    },
    {
      key: 'shift',
      header: t('sessions.columns.shift'),
      render: (s) => (s.shift_id ? (shifts.find((x) => x.id === s.shift_id)?.name ?? <EmptyCell />) : <EmptyCell />),
    },
    { key: 'started', header: t('sessions.columns.started'), render: (s) => format.dateTime(s.started_at) },
    {
      key: 'completed',
      header: t('sessions.columns.completed'),
      render: (s) => (s.completed_at ? format.dateTime(s.completed_at) : <EmptyCell />),
    },
    { key: 'records', header: t('sessions.columns.records'), render: (s) => format.number(s.record_count) },
    { key: 'kg', header: t('sessions.columns.kg'), render: (s) => format.kg(s.total_kg) },
  ];
  return (
    <Stack gap="sm" component="section" aria-labelledby="sessions-heading">
      <Title order={2} size="h3" id="sessions-heading">
        {t('sessions.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('sessions.description')}
      </Text>
      {later.error && <ErrorAlert error={later.error} />}
      <DataTable caption={t('sessions.title')} columns={columns} rows={page?.data ?? []} rowKey={(s) => s.id} empty={t('sessions.empty')} />
      <Pager
        offset={offset}
        limit={SESSIONS_PAGE_SIZE}
        total={first.data.total}
        hasMore={offset + SESSIONS_PAGE_SIZE < first.data.total}
        onChange={setOffset}
      />
    </Stack>
  );
}
