import { Badge, Button, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type Member, type PendingInvitation, ROLES, type Role } from '@merma/schema/dashboard';
import { IconUserPlus } from '@tabler/icons-react';
import { useMutation, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../components/confirm.tsx';
import { type Column, DataTable, EmptyCell } from '../../components/DataTable.tsx';
import { Page } from '../../components/Page.tsx';
import { useFormat } from '../../lib/format.ts';
import { notifications } from '../../lib/notify.ts';
import { can } from '../../lib/permissions.ts';
import { useScope } from '../../lib/scope.ts';
import { queryClient, trpc } from '../../trpc.ts';
import { InviteModal } from './InviteModal.tsx';
import { RemoveMemberModal } from './RemoveMemberModal.tsx';

export function TeamPage() {
  const { t } = useTranslation();
  const { me } = useScope();
  const manage = can.manageTeam(me.role);
  const [inviting, inviteModal] = useDisclosure(false);
  const { data: team } = useSuspenseQuery(trpc.team.get.queryOptions());

  return (
    <Page
      title={t('team.title')}
      description={manage ? t('team.description') : t('team.readOnly')}
      actions={
        manage && (
          <Button leftSection={<IconUserPlus size={16} aria-hidden />} onClick={inviteModal.open}>
            {t('team.invite.button')}
          </Button>
        )
      }
    >
      <Stack gap="sm" component="section" aria-labelledby="members-title">
        <Title order={2} size="h3" id="members-title">
          {t('team.members.title')}
        </Title>
        <Members members={team.members} manage={manage} myId={me.user.id} />
      </Stack>
      <Stack gap="sm" component="section" aria-labelledby="invitations-title">
        <Title order={2} size="h3" id="invitations-title">
          {t('team.invitations.title')}
        </Title>
        <Invitations invitations={team.invitations} manage={manage} />
      </Stack>
      {inviting && <InviteModal onClose={inviteModal.close} />}
    </Page>
  );
}

function useRoleOptions() {
  const { t } = useTranslation();
  return ROLES.map((role) => ({ value: role, label: t(`roles.${role}`) }));
}

function Members({ members, manage, myId }: { members: Member[]; manage: boolean; myId: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const roleOptions = useRoleOptions();
  const touched = () => queryClient.invalidateQueries(trpc.team.pathFilter());
  const changeRole = useMutation(
    trpc.team.changeRole.mutationOptions({
      onSuccess: (member) => {
        notifications.show({
          color: 'teal',
          message: t('team.members.roleChanged', { name: member.name, role: t(`roles.${member.role}`) }),
        });
        return touched();
      },
    }),
  );
  const [removing, setRemoving] = useState<Member | null>(null);

  const columns: Column<Member>[] = [
    {
      key: 'name',
      header: t('team.columns.name'),
      render: (m) => (
        <Group gap="xs">
          <Text fw={500} size="sm">
            {m.name}
          </Text>
          {m.user_id === myId && (
            <Badge miw="max-content" variant="outline" color="gray" size="sm">
              {t('team.members.you')}
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'email', header: t('team.columns.email'), render: (m) => m.email },
    {
      key: 'role',
      header: t('team.columns.role'),
      render: (m) =>
        manage && m.user_id !== myId ? (
          <Select
            aria-label={t('team.members.roleOf', { name: m.name })}
            data={roleOptions}
            value={m.role}
            onChange={(role) => {
              if (role && role !== m.role) changeRole.mutate({ user_id: m.user_id, role: role as Role });
            }}
            allowDeselect={false}
            disabled={changeRole.isPending && changeRole.variables?.user_id === m.user_id}
            size="xs"
            w={160}
          />
        ) : (
          <Badge miw="max-content" variant="light">
            {t(`roles.${m.role}`)}
          </Badge>
        ),
    },
    { key: 'joined', header: t('team.columns.joined'), render: (m) => format.dateTime(m.joined_at) },
  ];
  if (manage) {
    columns.push({
      key: 'actions',
      header: t('table.actions'),
      hideHeader: true,
      render: (m) =>
        m.user_id !== myId && (
          <Button
            size="xs"
            color="red"
            variant="light"
            aria-label={t('team.members.removeNamed', { name: m.name })}
            onClick={() => setRemoving(m)}
          >
            {t('team.members.remove')}
          </Button>
        ),
    });
  }
  return (
    <>
      <DataTable
        caption={t('team.members.title')}
        columns={columns}
        rows={members}
        rowKey={(m) => m.user_id}
        empty={t('team.members.empty')}
      />
      {removing && <RemoveMemberModal member={removing} onClose={() => setRemoving(null)} />}
    </>
  );
}

function Invitations({ invitations, manage }: { invitations: PendingInvitation[]; manage: boolean }) {
  const { t } = useTranslation();
  const format = useFormat();
  const revoke = useMutation(
    trpc.team.revokeInvitation.mutationOptions({
      onSuccess: () => {
        notifications.show({ color: 'teal', message: t('team.invitations.revoked') });
        return queryClient.invalidateQueries(trpc.team.pathFilter());
      },
    }),
  );
  const columns: Column<PendingInvitation>[] = [
    { key: 'email', header: t('team.columns.email'), render: (i) => i.email },
    {
      key: 'role',
      header: t('team.columns.role'),
      render: (i) => (
        <Badge miw="max-content" variant="light">
          {t(`roles.${i.role}`)}
        </Badge>
      ),
    },
    { key: 'invited_by', header: t('team.columns.invitedBy'), render: (i) => i.invited_by ?? <EmptyCell /> },
    { key: 'created', header: t('team.columns.invitedAt'), render: (i) => format.dateTime(i.created_at) },
    { key: 'expires', header: t('team.columns.expires'), render: (i) => format.dateTime(i.expires_at) },
  ];
  if (manage) {
    columns.push({
      key: 'actions',
      header: t('table.actions'),
      hideHeader: true,
      render: (i) => (
        <ConfirmButton
          size="xs"
          label={t('team.invitations.revoke')}
          aria-label={t('team.invitations.revokeNamed', { email: i.email })}
          title={t('team.invitations.revokeTitle')}
          message={t('team.invitations.revokeConfirm', { email: i.email })}
          loading={revoke.isPending && revoke.variables?.id === i.id}
          onConfirm={() => revoke.mutate({ id: i.id })}
        />
      ),
    });
  }
  return (
    <DataTable
      caption={t('team.invitations.title')}
      columns={columns}
      rows={invitations}
      rowKey={(i) => i.id}
      empty={t('team.invitations.empty')}
    />
  );
}
