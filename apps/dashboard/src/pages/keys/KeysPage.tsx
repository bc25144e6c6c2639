import { Alert, Badge, Button, Code, Group, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ApiKeySummary } from '@merma/schema/dashboard';
import { IconPlus } from '@tabler/icons-react';
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
import { CreateKeyModal } from './CreateKeyModal.tsx';

export function KeysPage() {
  const { t } = useTranslation();
  const { me, establishment, mode } = useScope();
  const [creating, createModal] = useDisclosure(false);
  const manage = can.manageKeys(me.role);

  return (
    <Page
      title={t('keys.title')}
      description={manage ? t('keys.description') : t('keys.readOnly')}
      actions={
        manage &&
        establishment && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={createModal.open}>
            {t('keys.create')}
          </Button>
        )
      }
    >
      {!can.viewKeys(me.role) ? (
        <Alert color="gray">{t('keys.forbidden')}</Alert>
      ) : establishment ? (
        <>
          <KeysTable establishmentId={establishment.id} establishmentName={establishment.name} manage={manage} />
          {creating && <CreateKeyModal opened onClose={createModal.close} establishmentId={establishment.id} defaultMode={mode} />}
        </>
      ) : (
        <NoEstablishment />
      )}
    </Page>
  );
}

function KeysTable({
  establishmentId,
  establishmentName,
  manage,
}: {
  establishmentId: string;
  establishmentName: string;
  manage: boolean;
}) {
  const { t } = useTranslation();
  const format = useFormat();
  const { data: keys } = useSuspenseQuery(trpc.keys.list.queryOptions({ establishment_id: establishmentId }));
  const revoke = useMutation(
    trpc.keys.revoke.mutationOptions({
      onSuccess: (key) => {
        notifications.show({ color: 'teal', message: t('keys.revoked', { name: key.name }) });
        return queryClient.invalidateQueries(trpc.keys.pathFilter());
      },
    }),
  );

  const columns: Column<ApiKeySummary>[] = [
    {
      key: 'name',
      header: t('keys.columns.name'),
      render: (k) => (
        <Text fw={500} size="sm">
          {k.name}
        </Text>
      ),
    },
    { key: 'key', header: t('keys.columns.key'), render: (k) => <Code>{k.redacted}</Code> },
    { key: 'mode', header: t('keys.columns.mode'), render: (k) => <ModeBadge mode={k.mode} /> },
    { key: 'permissions', header: t('keys.columns.permissions'), render: (k) => <Permissions permissions={k.permissions} /> },
    { key: 'created_by', header: t('keys.columns.createdBy'), render: (k) => <Creator creator={k.created_by} /> },
    { key: 'created_at', header: t('keys.columns.createdAt'), render: (k) => format.dateTime(k.created_at) },
    {
      key: 'last_used_at',
      header: t('keys.columns.lastUsed'),
      render: (k) =>
        k.last_used_at ? (
          format.dateTime(k.last_used_at)
        ) : (
          <Text c="dimmed" size="sm">
            {t('keys.never')}
          </Text>
        ),
    },
    {
      key: 'status',
      header: t('keys.columns.status'),
      render: (k) =>
        k.revoked_at ? (
          <Stack gap={2}>
            <Badge miw="max-content" color="gray" variant="light">
              {t('keys.status.revoked')}
            </Badge>
            <Text size="xs" c="dimmed">
              {format.dateTime(k.revoked_at)}
            </Text>
          </Stack>
        ) : (
          <Badge miw="max-content" color="teal" variant="light">
            {t('keys.status.active')}
          </Badge>
        ),
    },
  ];
  if (manage) {
    columns.push({
      key: 'actions',
      header: t('table.actions'),
      hideHeader: true,
      render: (k) =>
        !k.revoked_at && (
          <ConfirmButton
            size="xs"
            label={t('keys.revoke')}
            aria-label={t('keys.revokeNamed', { name: k.name })}
            title={t('keys.revokeTitle', { name: k.name })}
            message={t('keys.revokeConfirm')}
            loading={revoke.isPending && revoke.variables?.id === k.id}
            onConfirm={() => revoke.mutate({ establishment_id: establishmentId, id: k.id })}
          />
        ),
    });
  }

  return (
    <DataTable
      caption={t('keys.caption', { establishment: establishmentName })}
      columns={columns}
      rows={keys}
      rowKey={(k) => k.id}
      empty={t('keys.empty')}
      minWidth={980}
    />
  );
}

function Permissions({ permissions }: { permissions: string[] }) {
  const { t } = useTranslation();
  if (permissions.includes('*')) {
    return (
      <Badge miw="max-content" color="violet" variant="light">
        {t('keys.allPermissions')}
      </Badge>
    );
  }
  return (
    <Group gap={4} maw={260}>
      {permissions.map((p) => (
        <Code key={p}>{p}</Code>
      ))}
    </Group>
  );
}

/** Who made a key: the user's name and e-mail, or the operator (merma-admin) for keys made outside the dashboard. */
function Creator({ creator }: { creator: ApiKeySummary['created_by'] }) {
  const { t } = useTranslation();
  if (!creator) {
    return (
      <Text size="sm" c="dimmed">
        {t('keys.createdByOperator')}
      </Text>
    );
  }
  if (!creator.name) return <Text size="sm">{creator.email}</Text>;
  return (
    <Stack gap={0}>
      <Text size="sm">{creator.name}</Text>
      <Text size="xs" c="dimmed">
        {creator.email}
      </Text>
    </Stack>
  );
}
