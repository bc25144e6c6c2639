import { Badge, Button, Card, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { Session, Shift } from '@merma/schema';
import type { DashboardShift } from '@merma/schema/dashboard';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { Pager } from '../../components/Pager.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { OpeningCalendar } from './OpeningCalendar.tsx';

export const SESSIONS_PAGE_SIZE = 20;
type Scope = { establishment_id: string; livemode: boolean };

/**
 * The establishment's work shifts (a record made without a shift joins the one in progress) and its
 * registration sessions — a closing count, an inventory — with their record count and kg; a
 * session's name opens its records. Owners, admins and developers edit, archive and delete shifts:
 * a shift that records or sessions name cannot be deleted (their history keeps it), so the page
 * offers to archive it instead — it stops taking new records and keeps its name on the old ones.
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
      <OpeningCalendar scope={scope} timezone={establishment.timezone} />
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
  const manage = can.manageShifts(me.role);
  const [editing, setEditing] = useState<DashboardShift | null>(null);
  const columns: Column<DashboardShift>[] = [
    {
      key: 'name',
      header: t('shifts.columns.name'),
      render: (s) => (
        <Group gap="xs">
          <Text size="sm">{s.name}</Text>
          {s.archived && (
            <Badge variant="light" color="gray">
              {t('shifts.archived')}
            </Badge>
          )}
        </Group>
      ),
    },
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
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('shifts.columns.actions'),
            render: (s: DashboardShift) => <ShiftActions shift={s} scope={scope} onEdit={() => setEditing(s)} />,
          },
        ]
      : []),
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
        minWidth={manage ? 640 : 480}
      />
      {manage ? (
        <NewShift scope={scope} />
      ) : (
        <Text size="sm" c="dimmed">
          {t('shifts.readOnly')}
        </Text>
      )}
      {editing && <EditShift shift={editing} scope={scope} onClose={() => setEditing(null)} />}
    </Stack>
  );
}

/** Edit, archive or restore, and delete — offering to archive when the shift is in use (409). */
function ShiftActions({ shift, scope, onEdit }: { shift: DashboardShift; scope: Scope; onEdit: () => void }) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const refresh = () => queryClient.invalidateQueries(trpc.shifts.list.pathFilter());
  const archive = useMutation(
    trpc.shifts.archive.mutationOptions({
      onSuccess: async (updated) => {
        notifications.show({
          color: 'teal',
          message: t(updated.archived ? 'shifts.archive.done' : 'shifts.archive.restored', { name: updated.name }),
        });
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.shifts.delete.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (deleted) => {
        notifications.show({ color: 'teal', message: t('shifts.delete.done', { name: deleted.name }) });
        await refresh();
      },
      onError: (error) => {
        if (errorInfo(error).httpStatus === 409) {
          confirm({
            title: t('shifts.delete.inUseTitle', { name: shift.name }),
            message: t('shifts.delete.inUse'),
            confirmLabel: t('shifts.archive.button'),
            danger: false,
            onConfirm: () => archive.mutate({ ...scope, id: shift.id, archived: true }),
          });
        } else {
          notifications.show({ color: 'red', message: errorInfo(error).serverMessage ?? t('errors.title') });
        }
      },
    }),
  );
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="xs" variant="default" onClick={onEdit} aria-label={t('shifts.edit.label', { name: shift.name })}>
        {t('shifts.edit.button')}
      </Button>
      <Button
        size="xs"
        variant="default"
        loading={archive.isPending}
        onClick={() => archive.mutate({ ...scope, id: shift.id, archived: !shift.archived })}
        aria-label={t(shift.archived ? 'shifts.archive.restoreLabel' : 'shifts.archive.label', { name: shift.name })}
      >
        {t(shift.archived ? 'shifts.archive.restore' : 'shifts.archive.button')}
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        loading={remove.isPending}
        aria-label={t('shifts.delete.label', { name: shift.name })}
        onClick={() =>
          confirm({
            title: t('shifts.delete.title', { name: shift.name }),
            message: t('shifts.delete.message'),
            confirmLabel: t('shifts.delete.button'),
            onConfirm: () => remove.mutate({ ...scope, id: shift.id }),
          })
        }
      >
        {t('shifts.delete.button')}
      </Button>
    </Group>
  );
}

/** The shift's name and hours; new records fall in the new hours, old ones keep their shift. */
function EditShift({ shift, scope, onClose }: { shift: DashboardShift; scope: Scope; onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { name: shift.name, start_time: shift.start_time, end_time: shift.end_time },
    validate: shiftRules(t),
  });
  const update = useMutation(
    trpc.shifts.update.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (updated) => {
        notifications.show({ color: 'teal', message: t('shifts.edit.done', { name: updated.name }) });
        await queryClient.invalidateQueries(trpc.shifts.list.pathFilter());
        onClose();
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title={t('shifts.edit.title', { name: shift.name })}>
      <form onSubmit={form.onSubmit((values) => update.mutate({ ...scope, id: shift.id, shift: values }))}>
        <Stack gap="sm">
          <TextInput label={t('shifts.form.name')} {...form.getInputProps('name')} maxLength={100} data-autofocus />
          <Group grow>
            <TextInput type="time" label={t('shifts.form.start')} {...form.getInputProps('start_time')} />
            <TextInput type="time" label={t('shifts.form.end')} {...form.getInputProps('end_time')} />
          </Group>
          <Text size="xs" c="dimmed">
            {t('shifts.edit.hint')}
          </Text>
          {update.error && <ErrorAlert error={update.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={update.isPending}>
              {t('common.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

type ShiftValues = { name: string; start_time: string; end_time: string };
const shiftRules = (t: TFunction) => ({
  name: (v: string) => (v.trim() ? null : t('shifts.form.nameRequired')),
  start_time: (v: string) => (/^\d{2}:\d{2}$/.test(v) ? null : t('shifts.form.timeRequired')),
  end_time: (v: string, values: ShiftValues) =>
    !/^\d{2}:\d{2}$/.test(v) ? t('shifts.form.timeRequired') : v === values.start_time ? t('shifts.form.sameTimes') : null,
});

function NewShift({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { name: '', start_time: '', end_time: '' },
    validate: shiftRules(t),
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
  const first = useSuspenseQuery(trpc.sessions.list.queryOptions({ ...scope, limit: SESSIONS_PAGE_SIZE, offset: 0 }));
  const later = useQuery({ ...trpc.sessions.list.queryOptions({ ...scope, limit: SESSIONS_PAGE_SIZE, offset }), enabled: offset > 0 });
  const page = offset === 0 ? first.data : later.data;
  const columns: Column<Session>[] = [
    {
      key: 'name',
      header: t('sessions.columns.name'),
      render: (s) => (
        <AnchorLink to="/sessions/$id" params={{ id: s.id }} search={(prev) => prev} size="sm">
          {s.name}
        </AnchorLink>
      ),
    },
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
