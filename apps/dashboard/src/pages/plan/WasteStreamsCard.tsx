import { Button, Card, Group, Modal, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { LER_CODES, MAX_WASTE_MANAGER_NAME_LENGTH, type WasteStream } from '@merma/schema';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';

/**
 * Each waste stream of the establishment (modules/compliance/waste-streams.ts): every destination
 * that is waste, with the LER code it is handed over under and the authorised manager who takes it
 * (name and NIMA). Owners and admins set and remove them, each change in the audit log; every
 * member reads them. A stream not yet described says so, as an inspector would see it.
 */
export function WasteStreamsCard({ establishmentId, manage }: { establishmentId: string; manage: boolean }) {
  const { t } = useTranslation('plan');
  const lang = currentLanguage();
  const confirm = useConfirm();
  const [editing, setEditing] = useState<WasteStream | null>(null);
  const { data: catalog } = useSuspenseQuery(trpc.catalog.get.queryOptions());
  const { data: streams } = useQuery(trpc.compliance.wasteStreams.queryOptions({ establishment_id: establishmentId }));
  const name = (s: WasteStream) => catalog.destinations.find((d) => d.id === s.destination_id)?.nombre ?? s.destination_code;
  const remove = useMutation(
    trpc.compliance.removeWasteStream.mutationOptions({
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('plan.streams.removed') });
        await queryClient.invalidateQueries(trpc.compliance.wasteStreams.pathFilter());
      },
    }),
  );
  const columns: Column<WasteStream>[] = [
    {
      key: 'destination',
      header: t('plan.streams.columns.destination'),
      render: (s) => (
        <Text size="sm">
          {name(s)} ({s.wfd_operation})
        </Text>
      ),
    },
    {
      key: 'ler',
      header: t('plan.streams.columns.ler'),
      render: (s) =>
        s.ler_code ? (
          <Text size="sm">
            {s.ler_code}
            {s.ler_label ? ` · ${s.ler_label[lang]}` : ''}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {t('plan.streams.missing')}
          </Text>
        ),
    },
    {
      key: 'manager',
      header: t('plan.streams.columns.manager'),
      render: (s) =>
        s.manager_name || s.manager_nima ? (
          <Text size="sm">
            {s.manager_name ?? '—'}
            {s.manager_nima ? ` · ${t('plan.streams.nima', { nima: s.manager_nima })}` : ''}
          </Text>
        ) : (
          <EmptyCell />
        ),
    },
    ...(manage
      ? [
          {
            key: 'actions',
            header: t('plan.streams.columns.actions'),
            render: (s: WasteStream) => (
              <Group gap="xs" wrap="nowrap">
                <Button
                  size="xs"
                  variant="light"
                  aria-label={t('plan.streams.editLabel', { destination: name(s) })}
                  onClick={() => setEditing(s)}
                >
                  {t('plan.streams.edit')}
                </Button>
                {s.ler_code && (
                  <Button
                    size="xs"
                    variant="light"
                    color="red"
                    aria-label={t('plan.streams.removeLabel', { destination: name(s) })}
                    onClick={() =>
                      confirm({
                        title: t('plan.streams.removeTitle', { destination: name(s) }),
                        message: t('plan.streams.removeMessage'),
                        confirmLabel: t('plan.streams.remove'),
                        onConfirm: () => remove.mutate({ establishment_id: establishmentId, destination_id: s.destination_id }),
                      })
                    }
                  >
                    {t('plan.streams.remove')}
                  </Button>
                )}
              </Group>
            ),
          },
        ]
      : []),
  ];
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="streams-title" data-print-hide data-testid="waste-streams">
      <Stack gap="sm">
        <Title order={2} size="h3" id="streams-title">
          {t('plan.streams.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('plan.streams.intro')}
        </Text>
        <DataTable
          caption={t('plan.streams.title')}
          columns={columns}
          rows={streams ?? []}
          rowKey={(s) => s.destination_id}
          empty={t('plan.streams.loading')}
          minWidth={manage ? 820 : 680}
        />
      </Stack>
      {editing && (
        <StreamModal establishmentId={establishmentId} stream={editing} destination={name(editing)} onClose={() => setEditing(null)} />
      )}
    </Card>
  );
}

function StreamModal({
  establishmentId,
  stream,
  destination,
  onClose,
}: {
  establishmentId: string;
  stream: WasteStream;
  destination: string;
  onClose: () => void;
}) {
  const { t } = useTranslation('plan');
  const lang = currentLanguage();
  const form = useForm({
    initialValues: { ler_code: stream.ler_code ?? '', manager_name: stream.manager_name ?? '', manager_nima: stream.manager_nima ?? '' },
    validate: {
      ler_code: (v: string) => (v ? null : t('plan.streams.form.lerRequired')),
      manager_nima: (v: string) => (v.trim() === '' || /^\d{10}$/.test(v.trim()) ? null : t('plan.streams.form.nimaDigits')),
    },
  });
  const save = useMutation(
    trpc.compliance.setWasteStream.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async () => {
        notifications.show({ color: 'teal', message: t('plan.streams.saved') });
        await queryClient.invalidateQueries(trpc.compliance.wasteStreams.pathFilter());
        onClose();
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title={t('plan.streams.form.title', { destination })} size="lg">
      <form
        onSubmit={form.onSubmit((v) =>
          save.mutate({
            establishment_id: establishmentId,
            destination_id: stream.destination_id,
            ler_code: v.ler_code,
            manager_name: v.manager_name.trim() || null,
            manager_nima: v.manager_nima.trim() || null,
          }),
        )}
      >
        <Stack gap="sm">
          <Select
            label={t('plan.streams.form.ler')}
            description={t('plan.streams.form.lerHelp')}
            data={Object.entries(LER_CODES).map(([code, label]) => ({
              value: code,
              label: `${code} · ${label[lang]} (${label.section[lang]})`,
            }))}
            searchable
            allowDeselect={false}
            {...form.getInputProps('ler_code')}
          />
          <TextInput
            label={t('plan.streams.form.manager')}
            maxLength={MAX_WASTE_MANAGER_NAME_LENGTH}
            {...form.getInputProps('manager_name')}
          />
          <TextInput
            label={t('plan.streams.form.nima')}
            description={t('plan.streams.form.nimaHelp')}
            inputMode="numeric"
            maxLength={10}
            w={220}
            {...form.getInputProps('manager_nima')}
          />
          {save.error && <ErrorAlert error={save.error} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('plan.streams.form.cancel')}
            </Button>
            <Button type="submit" loading={save.isPending}>
              {t('plan.streams.form.save')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
