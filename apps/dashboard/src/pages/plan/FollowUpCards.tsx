import { Badge, Button, Card, Group, Modal, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MEASURE_STATUSES, type MeasureStatus, type PlanMeasure, type TrainingSession } from '@merma/schema';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { YearCard } from './YearCard.tsx';

type Scope = { establishment_id: string; livemode: boolean };

const STATUS_COLOR: Record<MeasureStatus, string> = { planned: 'gray', in_progress: 'blue', done: 'teal', dropped: 'red' };

/** A measure's status as a badge, in the page's language. */
export function MeasureStatusBadge({ status }: { status: MeasureStatus }) {
  const { t } = useTranslation('plan');
  return (
    // As wide as its word: a narrow table cell would otherwise cut it to "EN …".
    <Badge color={STATUS_COLOR[status]} variant="light" style={{ width: 'max-content', maxWidth: 'none', flexShrink: 0 }}>
      {t(`plan.followUp.statuses.${status}`)}
    </Badge>
  );
}

/**
 * The plan's measures as they are followed up (modules/plan/follow-up.ts): each measure the newest
 * plan proposes, who carries it out, by when and how far it has gone. Owners, admins and developers
 * change them; each plan version generated afterwards keeps them as they stood.
 */
export function MeasuresCard({ scope, manage }: { scope: Scope; manage: boolean }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  const lang = currentLanguage();
  const [editing, setEditing] = useState<PlanMeasure | null>(null);
  const { data: measures } = useQuery(trpc.plan.measures.queryOptions({ ...scope, lang }));
  const columns: Column<PlanMeasure>[] = [
    { key: 'measure', header: t('plan.followUp.columns.measure'), render: (m) => <Text size="sm">{m.text}</Text> },
    { key: 'owner', header: t('plan.followUp.columns.owner'), render: (m) => m.owner ?? <EmptyCell /> },
    { key: 'due', header: t('plan.followUp.columns.due'), render: (m) => (m.due_on ? format.date(m.due_on) : <EmptyCell />) },
    { key: 'status', header: t('plan.followUp.columns.status'), render: (m) => <MeasureStatusBadge status={m.status} /> },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('plan.followUp.columns.actions'),
            render: (m: PlanMeasure) => (
              <Button
                size="xs"
                variant="light"
                aria-label={t('plan.followUp.editLabel', { measure: m.text })}
                onClick={() => setEditing(m)}
              >
                {t('plan.followUp.edit')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="measures-title" data-testid="plan-measures" data-print-hide>
      <Stack gap="sm">
        <Title order={2} size="h3" id="measures-title">
          {t('plan.followUp.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('plan.followUp.intro')}
        </Text>
        <DataTable
          caption={t('plan.followUp.title')}
          columns={columns}
          rows={measures ?? []}
          rowKey={(m) => m.measure_id}
          empty={t('plan.followUp.empty')}
          minWidth={manage ? 760 : 640}
        />
      </Stack>
      {editing && <MeasureModal scope={scope} measure={editing} onClose={() => setEditing(null)} />}
    </Card>
  );
}

function MeasureModal({ scope, measure, onClose }: { scope: Scope; measure: PlanMeasure; onClose: () => void }) {
  const { t } = useTranslation('plan');
  const form = useForm({
    initialValues: { owner: measure.owner ?? '', due_on: measure.due_on ?? '', status: measure.status as string, note: measure.note ?? '' },
    validate: {
      owner: (v: string) => (v.trim().length > 120 ? t('plan.followUp.form.tooLong', { max: 120 }) : null),
      due_on: (v: string) => (v === '' || /^\d{4}-\d{2}-\d{2}$/.test(v) ? null : t('plan.followUp.form.date')),
    },
  });
  const save = useMutation(
    trpc.plan.updateMeasure.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('plan.followUp.saved') });
        await queryClient.invalidateQueries(trpc.plan.measures.pathFilter());
        onClose();
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title={t('plan.followUp.form.title')} size="lg">
      <form
        onSubmit={form.onSubmit((v) =>
          save.mutate({
            ...scope,
            lang: currentLanguage(),
            measure_id: measure.measure_id,
            owner: v.owner.trim() || null,
            due_on: v.due_on || null,
            status: v.status as MeasureStatus,
            note: v.note.trim() || null,
          }),
        )}
      >
        <Stack gap="sm">
          <Text size="sm">{measure.text}</Text>
          <TextInput label={t('plan.followUp.form.owner')} maxLength={120} {...form.getInputProps('owner')} />
          <TextInput type="date" label={t('plan.followUp.form.due')} w={200} {...form.getInputProps('due_on')} />
          <Select
            label={t('plan.followUp.form.status')}
            data={MEASURE_STATUSES.map((s) => ({ value: s, label: t(`plan.followUp.statuses.${s}`) }))}
            allowDeselect={false}
            {...form.getInputProps('status')}
          />
          <Textarea label={t('plan.followUp.form.note')} autosize minRows={2} maxLength={1000} {...form.getInputProps('note')} />
          {save.error && <ErrorAlert error={save.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('plan.followUp.form.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('plan.followUp.form.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * The staff training sessions of a year: what the plan's measures ask of the team, recorded on the
 * day they were held (today at the latest). Owners, admins and developers record and delete them.
 */
export function TrainingCard({ scope, currentYear, manage }: { scope: Scope; currentYear: number; manage: boolean }) {
  const { t } = useTranslation('plan');
  const format = useFormat();
  const confirm = useConfirm();
  const [year, setYear] = useState(currentYear);
  const { data: sessions } = useQuery(trpc.plan.trainingSessions.queryOptions({ ...scope, year }));
  const remove = useMutation(
    trpc.plan.deleteTrainingSession.mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('plan.training.deleted') });
        await queryClient.invalidateQueries(trpc.plan.trainingSessions.pathFilter());
      },
    }),
  );
  const columns: Column<TrainingSession>[] = [
    { key: 'date', header: t('plan.training.columns.date'), render: (s) => format.date(s.held_on) },
    { key: 'topic', header: t('plan.training.columns.topic'), render: (s) => <Text size="sm">{s.topic}</Text> },
    { key: 'trainer', header: t('plan.training.columns.trainer'), render: (s) => s.trainer ?? <EmptyCell /> },
    { key: 'attendees', header: t('plan.training.columns.attendees'), render: (s) => s.attendees },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('plan.training.columns.actions'),
            render: (s: TrainingSession) => (
              <Button
                size="xs"
                variant="light"
                color="red"
                aria-label={t('plan.training.deleteLabel', { topic: s.topic, date: format.date(s.held_on) })}
                onClick={() =>
                  confirm({
                    title: t('plan.training.deleteTitle', { topic: s.topic }),
                    message: t('plan.training.deleteMessage'),
                    confirmLabel: t('plan.training.delete'),
                    onConfirm: () => remove.mutate({ ...scope, id: s.id }),
                  })
                }
              >
                {t('plan.training.delete')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <YearCard
      id="training-title"
      testId="plan-training"
      title={t('plan.training.title')}
      yearLabel={t('plan.training.year')}
      year={year}
      currentYear={currentYear}
      onYear={setYear}
      printHide
    >
      <DataTable
        caption={t('plan.training.title')}
        columns={columns}
        rows={sessions ?? []}
        rowKey={(s) => s.id}
        empty={t('plan.training.empty')}
        minWidth={manage ? 640 : 520}
      />
      {manage && <NewTraining scope={scope} />}
    </YearCard>
  );
}

function NewTraining({ scope }: { scope: Scope }) {
  const { t } = useTranslation('plan');
  const form = useForm({
    initialValues: { held_on: '', topic: '', trainer: '', attendees: '', attendee_names: '' },
    validate: {
      held_on: (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? null : t('plan.followUp.form.date')),
      topic: (v: string) => (v.trim() ? null : t('plan.training.form.topicRequired')),
      attendees: (v: string) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 ? null : t('plan.training.form.attendeesWhole')),
    },
  });
  const create = useMutation(
    trpc.plan.addTrainingSession.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('plan.training.created') });
        form.reset();
        await queryClient.invalidateQueries(trpc.plan.trainingSessions.pathFilter());
      },
    }),
  );
  return (
    <Card
      withBorder
      padding="md"
      component="form"
      aria-labelledby="new-training"
      onSubmit={form.onSubmit((v) =>
        create.mutate({
          ...scope,
          held_on: v.held_on,
          topic: v.topic.trim(),
          trainer: v.trainer.trim() || null,
          attendees: Number(v.attendees.trim()),
          attendee_names: v.attendee_names.trim() || null,
        }),
      )}
    >
      <Text fw={600} id="new-training" mb="xs">
        {t('plan.training.form.title')}
      </Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput type="date" label={t('plan.training.form.date')} w={170} {...form.getInputProps('held_on')} />
        <TextInput label={t('plan.training.form.topic')} maxLength={200} w={260} {...form.getInputProps('topic')} />
        <TextInput label={t('plan.training.form.trainer')} maxLength={120} w={200} {...form.getInputProps('trainer')} />
        <TextInput label={t('plan.training.form.attendees')} inputMode="numeric" w={120} {...form.getInputProps('attendees')} />
      </Group>
      <Textarea
        mt="sm"
        label={t('plan.training.form.names')}
        autosize
        minRows={1}
        maxLength={2000}
        {...form.getInputProps('attendee_names')}
      />
      <Button type="submit" mt="sm" loading={create.isPending}>
        {t('plan.training.form.submit')}
      </Button>
      {create.error && <ErrorAlert error={create.error} />}
    </Card>
  );
}
