import { Button, Card, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { type Closure, WEEKDAYS, type Weekday } from '@merma/schema';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';

type Scope = { establishment_id: string; livemode: boolean };

/**
 * The opening calendar beside the shifts: the weekdays the establishment is closed every week and
 * its closures (holidays, a winter break). The production advice reads it: no quantity for a
 * closed day, closed days not taken for days without demand, the first days after a closure
 * marked. Owners, admins and developers change it (as they do the shifts); everyone reads it.
 */
export function OpeningCalendar({ scope, timezone }: { scope: Scope; timezone: string }) {
  const { t } = useTranslation();
  const { me } = useScope();
  const { data } = useSuspenseQuery(trpc.opening.get.queryOptions(scope));
  const manage = can.manageShifts(me.role);
  return (
    <Stack gap="sm" component="section" aria-labelledby="opening-heading">
      <Title order={2} size="h3" id="opening-heading">
        {t('opening.title')}
      </Title>
      <Text size="sm" c="dimmed">
        {t('opening.description')}
      </Text>
      <ClosedWeekdays scope={scope} closed={data.closed_weekdays} manage={manage} />
      <Closures scope={scope} closures={data.closures} manage={manage} timezone={timezone} />
    </Stack>
  );
}

const refresh = () =>
  Promise.all([
    queryClient.invalidateQueries(trpc.opening.get.pathFilter()),
    queryClient.invalidateQueries(trpc.predict.demand.pathFilter()),
  ]);

function ClosedWeekdays({ scope, closed, manage }: { scope: Scope; closed: Weekday[]; manage: boolean }) {
  const { t } = useTranslation();
  const [value, setValue] = useState<string[]>(closed);
  const changed = value.length !== closed.length || value.some((d) => !closed.includes(d as Weekday));
  const save = useMutation(
    trpc.opening.setClosedWeekdays.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (calendar) => {
        setValue(calendar.closed_weekdays);
        notifications.show({ color: 'teal', message: t('opening.weekdays.saved') });
        await refresh();
      },
    }),
  );
  return (
    <Card withBorder padding="md">
      <Checkbox.Group
        label={t('opening.weekdays.label')}
        description={t('opening.weekdays.hint')}
        value={value}
        onChange={setValue}
        readOnly={!manage}
      >
        <Group gap="md" mt="xs">
          {WEEKDAYS.map((day) => (
            <Checkbox key={day} value={day} label={t(`opening.weekdays.names.${day}`)} disabled={!manage} />
          ))}
        </Group>
      </Checkbox.Group>
      {manage && (
        <Group mt="sm">
          <Button
            size="sm"
            disabled={!changed}
            loading={save.isPending}
            onClick={() => save.mutate({ ...scope, calendar: { closed_weekdays: value as Weekday[] } })}
          >
            {t('opening.weekdays.save')}
          </Button>
        </Group>
      )}
      {save.error && <ErrorAlert error={save.error} />}
    </Card>
  );
}

function Closures({ scope, closures, manage, timezone }: { scope: Scope; closures: Closure[]; manage: boolean; timezone: string }) {
  const { t } = useTranslation();
  const format = useFormat(timezone);
  const confirm = useConfirm();
  const remove = useMutation(
    trpc.opening.deleteClosure.mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('opening.closures.deleted') });
        await refresh();
      },
    }),
  );
  const dates = (c: Closure) =>
    c.starts_on === c.ends_on
      ? format.longDay(c.starts_on)
      : t('opening.closures.range', { from: format.longDay(c.starts_on), to: format.longDay(c.ends_on) });
  const columns: Column<Closure>[] = [
    { key: 'dates', header: t('opening.closures.columns.dates'), render: (c) => <Text size="sm">{dates(c)}</Text> },
    { key: 'reason', header: t('opening.closures.columns.reason'), render: (c) => c.reason ?? <EmptyCell /> },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('opening.closures.columns.actions'),
            render: (c: Closure) => (
              <Button
                size="xs"
                variant="light"
                color="red"
                aria-label={t('opening.closures.deleteLabel', { dates: dates(c) })}
                onClick={() =>
                  confirm({
                    title: t('opening.closures.deleteTitle', { dates: dates(c) }),
                    message: t('opening.closures.deleteMessage'),
                    confirmLabel: t('opening.closures.delete'),
                    onConfirm: () => remove.mutate({ ...scope, id: c.id }),
                  })
                }
              >
                {t('opening.closures.delete')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <Stack gap="sm">
      <Title order={3} size="h4">
        {t('opening.closures.title')}
      </Title>
      <DataTable
        caption={t('opening.closures.title')}
        columns={columns}
        rows={closures}
        rowKey={(c) => c.id}
        empty={t('opening.closures.empty')}
        minWidth={manage ? 560 : 400}
      />
      {manage && <NewClosure scope={scope} />}
    </Stack>
  );
}

function NewClosure({ scope }: { scope: Scope }) {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { starts_on: '', ends_on: '', reason: '' },
    validate: {
      starts_on: (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? null : t('opening.closures.form.dateRequired')),
      ends_on: (v: string, values) =>
        v === ''
          ? null
          : !/^\d{4}-\d{2}-\d{2}$/.test(v)
            ? t('opening.closures.form.dateRequired')
            : v < values.starts_on
              ? t('opening.closures.form.endsBefore')
              : null,
    },
  });
  const create = useMutation(
    trpc.opening.createClosure.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('opening.closures.form.created') });
        form.reset();
        await refresh();
      },
    }),
  );
  return (
    <Card
      withBorder
      padding="md"
      component="form"
      aria-labelledby="new-closure"
      onSubmit={form.onSubmit((values) =>
        create.mutate({
          ...scope,
          // One day when the last day is left empty.
          closure: { starts_on: values.starts_on, ends_on: values.ends_on || values.starts_on, reason: values.reason || null },
        }),
      )}
    >
      <Text fw={600} id="new-closure" mb="xs">
        {t('opening.closures.form.title')}
      </Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput type="date" label={t('opening.closures.form.from')} {...form.getInputProps('starts_on')} w={170} />
        <TextInput type="date" label={t('opening.closures.form.to')} {...form.getInputProps('ends_on')} w={170} />
        <TextInput label={t('opening.closures.form.reason')} {...form.getInputProps('reason')} maxLength={200} w={220} />
        <Button type="submit" mt={25} loading={create.isPending}>
          {t('opening.closures.form.submit')}
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mt="xs">
        {t('opening.closures.form.hint')}
      </Text>
      {create.error && <ErrorAlert error={create.error} />}
    </Card>
  );
}
