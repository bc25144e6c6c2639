import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { MAX_TARE_PRESET_KG, MAX_TARE_PRESETS, type TarePreset } from '@merma/schema/dashboard';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { DecimalInput, decimalError, decimalValue } from '../../components/DecimalInput.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';

/**
 * The kitchen's containers (apps/server/src/modules/stations/tare-presets.ts): a named bucket or
 * tray with its empty weight, which every station of the establishment offers as a tare, so the
 * register holds the food's net weight. Owners and admins add and delete them, each in the audit log.
 */
export function ContainersCard({ establishmentId }: { establishmentId: string }) {
  const { t } = useTranslation('station');
  const { t: common } = useTranslation();
  const format = useFormat();
  const { data: presets } = useSuspenseQuery(trpc.stations.tarePresets.queryOptions({ establishment_id: establishmentId }));
  const form = useForm({
    initialValues: { name: '', tare: '' },
    validate: {
      name: (v: string) => (v.trim() ? null : t('stations.containers.nameRequired')),
      tare: (v: string) => decimalError(common, v, format.language, { min: 0.001, max: MAX_TARE_PRESET_KG }),
    },
  });
  const refresh = () => queryClient.invalidateQueries(trpc.stations.tarePresets.pathFilter());
  const add = useMutation(
    trpc.stations.addTarePreset.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (preset) => {
        notifications.show({ color: 'teal', message: t('stations.containers.added', { name: preset.name }) });
        form.reset();
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.stations.deleteTarePreset.mutationOptions({
      onSuccess: async (preset) => {
        notifications.show({ color: 'teal', message: t('stations.containers.deleted', { name: preset.name }) });
        await refresh();
      },
    }),
  );
  const columns: Column<TarePreset>[] = [
    { key: 'name', header: t('stations.containers.columns.name'), render: (p) => p.name },
    { key: 'tare', header: t('stations.containers.columns.tare'), render: (p) => format.kgPrecise(p.tare_kg) },
    {
      key: 'actions',
      header: common('table.actions'),
      hideHeader: true,
      render: (p) => (
        <ConfirmButton
          size="xs"
          label={t('stations.containers.delete')}
          aria-label={t('stations.containers.deleteNamed', { name: p.name })}
          title={t('stations.containers.deleteTitle', { name: p.name })}
          message={t('stations.containers.deleteConfirm')}
          loading={remove.isPending && remove.variables?.id === p.id}
          onConfirm={() => remove.mutate({ establishment_id: establishmentId, id: p.id })}
        />
      ),
    },
  ];
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="containers-title" data-testid="containers">
      <Stack gap="sm">
        <Title order={2} size="h3" id="containers-title">
          {t('stations.containers.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('stations.containers.intro', { max: MAX_TARE_PRESETS })}
        </Text>
        <DataTable
          caption={t('stations.containers.title')}
          columns={columns}
          rows={presets}
          rowKey={(p) => p.id}
          empty={t('stations.containers.empty')}
          minWidth={420}
        />
        <form
          onSubmit={form.onSubmit((v) =>
            add.mutate({
              establishment_id: establishmentId,
              name: v.name.trim(),
              tare_kg: decimalValue(v.tare, format.language) as number,
            }),
          )}
        >
          <Group align="flex-start" gap="sm">
            <TextInput label={t('stations.containers.name')} maxLength={60} w={{ base: '100%', xs: 240 }} {...form.getInputProps('name')} />
            <DecimalInput label={t('stations.containers.tare')} w={{ base: '100%', xs: 140 }} {...form.getInputProps('tare')} />
            <Button type="submit" mt={{ base: 0, xs: 25 }} loading={add.isPending}>
              {t('stations.containers.add')}
            </Button>
          </Group>
          {add.error && <ErrorAlert error={add.error} />}
        </form>
      </Stack>
    </Card>
  );
}
