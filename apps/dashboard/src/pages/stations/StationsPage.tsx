import { Alert, Badge, Button, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { StationDevice } from '@merma/schema/dashboard';
import { IconDeviceTablet } from '@tabler/icons-react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm.tsx';
import { type Column, DataTable } from '../../components/DataTable.tsx';
import { ModeBadge } from '../../components/ModeBadge.tsx';
import { NoEstablishment } from '../../components/NoEstablishment.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { ContainersCard } from './ContainersCard.tsx';
import { PairStationModal } from './PairStationModal.tsx';

const STATUS_COLOR = { pairing: 'blue', expired: 'gray', active: 'teal', revoked: 'gray' } as const;

/**
 * Kitchen stations (docs/decisions/0007-the-kitchen-station.md): the tablets paired to this
 * establishment in the mode shown, with their last use; owners and admins pair one (a one-time code
 * and its QR code) and unpair one, at once. Other roles are told who can.
 */
export function StationsPage() {
  const { t } = useTranslation('station');
  const { me, establishment, mode } = useScope();
  const [pairing, pairModal] = useDisclosure(false);
  const manage = can.manageTeam(me.role);
  const scope = establishment ? { establishment_id: establishment.id, livemode: mode === 'live' } : null;
  return (
    <Page
      title={t('stations.title')}
      description={manage ? t('stations.description') : t('stations.readOnly')}
      actions={
        manage &&
        scope && (
          <Button leftSection={<IconDeviceTablet size={16} aria-hidden />} onClick={pairModal.open}>
            {t('stations.add')}
          </Button>
        )
      }
    >
      {!manage ? (
        <Alert color="gray">{t('stations.readOnly')}</Alert>
      ) : scope && establishment ? (
        <>
          <Stack gap="lg">
            <StationsTable scope={scope} establishmentName={establishment.name} />
            <ContainersCard establishmentId={establishment.id} />
          </Stack>
          {pairing && <PairStationModal onClose={pairModal.close} scope={scope} />}
        </>
      ) : (
        <NoEstablishment />
      )}
    </Page>
  );
}

function StationsTable({
  scope,
  establishmentName,
}: {
  scope: { establishment_id: string; livemode: boolean };
  establishmentName: string;
}) {
  const { t } = useTranslation('station');
  const { t: common } = useTranslation();
  const format = useFormat();
  const { data: devices } = useSuspenseQuery(trpc.stations.list.queryOptions(scope));
  const revoke = useMutation(
    trpc.stations.revoke.mutationOptions({
      onSuccess: (device) => {
        notifications.show({ color: 'teal', message: t('stations.revoked', { name: device.name }) });
        return queryClient.invalidateQueries(trpc.stations.pathFilter());
      },
    }),
  );
  const when = (at: string | null) =>
    at ? (
      format.dateTime(at)
    ) : (
      <Text c="dimmed" size="sm">
        {t('stations.never')}
      </Text>
    );
  const columns: Column<StationDevice>[] = [
    {
      key: 'name',
      header: t('stations.columns.name'),
      render: (d) => (
        <Text fw={500} size="sm">
          {d.name}
        </Text>
      ),
    },
    { key: 'mode', header: t('stations.columns.mode'), render: (d) => <ModeBadge mode={d.mode} /> },
    {
      key: 'status',
      header: t('stations.columns.status'),
      render: (d) => (
        <Stack gap={2}>
          <Badge miw="max-content" color={STATUS_COLOR[d.status]} variant="light">
            {t(`stations.status.${d.status}`)}
          </Badge>
          {d.revoked_at && (
            <Text size="xs" c="dimmed">
              {format.dateTime(d.revoked_at)}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'created_by', header: t('stations.columns.createdBy'), render: (d) => d.created_by?.name || d.created_by?.email || '—' },
    { key: 'paired_at', header: t('stations.columns.pairedAt'), render: (d) => when(d.paired_at) },
    { key: 'last_used_at', header: t('stations.columns.lastUsed'), render: (d) => when(d.last_used_at) },
    {
      key: 'actions',
      header: common('table.actions'),
      hideHeader: true,
      render: (d) =>
        (d.status === 'active' || d.status === 'pairing') && (
          <ConfirmButton
            size="xs"
            label={t('stations.revoke')}
            aria-label={t('stations.revokeNamed', { name: d.name })}
            title={t('stations.revokeTitle', { name: d.name })}
            message={t('stations.revokeConfirm')}
            loading={revoke.isPending && revoke.variables?.id === d.id}
            onConfirm={() => revoke.mutate({ ...scope, id: d.id })}
          />
        ),
    },
  ];
  return (
    <DataTable
      caption={t('stations.caption', { establishment: establishmentName })}
      columns={columns}
      rows={devices}
      rowKey={(d) => d.id}
      empty={t('stations.empty')}
      minWidth={900}
    />
  );
}
