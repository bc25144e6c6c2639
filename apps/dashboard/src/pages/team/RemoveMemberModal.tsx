import { Button, Checkbox, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import type { Member } from '@merma/schema/dashboard';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { notifications } from '../../lib/notify.ts';
import { queryClient, trpc } from '../../trpc.ts';

/**
 * Confirms removing a member, and offers to revoke the API keys they created in the organisation
 * (checked by default: keys outliving their maker is how access lingers). The server revokes them
 * in the removal's own transaction; this dialog only asks. Render it only while open.
 */
export function RemoveMemberModal({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const [revokeKeys, setRevokeKeys] = useState(true);
  const keys = useQuery(trpc.team.memberApiKeys.queryOptions({ user_id: member.user_id }, { staleTime: 0 }));
  const active = keys.data?.active ?? 0;
  const remove = useMutation(
    trpc.team.remove.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (removed) => {
        notifications.show({
          color: 'teal',
          message:
            removed.revoked_keys > 0 ? t('team.members.removedWithKeys', { count: removed.revoked_keys }) : t('team.members.removed'),
        });
        onClose();
        await Promise.all([
          queryClient.invalidateQueries(trpc.team.pathFilter()),
          removed.revoked_keys > 0 ? queryClient.invalidateQueries(trpc.keys.pathFilter()) : undefined,
        ]);
      },
    }),
  );

  return (
    <Modal opened onClose={onClose} title={t('team.members.removeTitle', { name: member.name || member.email })}>
      <Stack gap="md">
        {remove.error && <ErrorAlert error={remove.error} />}
        <Text size="sm">{t('team.members.removeConfirm', { name: member.name || member.email, email: member.email })}</Text>
        {keys.isPending ? (
          <Group gap="xs">
            <Loader size="xs" aria-hidden />
            <Text size="sm" c="dimmed">
              {t('team.members.keysLoading')}
            </Text>
          </Group>
        ) : keys.error ? (
          <ErrorAlert error={keys.error} />
        ) : active === 0 ? (
          <Text size="sm" c="dimmed">
            {t('team.members.keysNone')}
          </Text>
        ) : (
          <Stack gap="xs">
            <Text size="sm" fw={500}>
              {t('team.members.keysActive', { count: active })}
            </Text>
            <Checkbox
              checked={revokeKeys}
              onChange={(event) => setRevokeKeys(event.currentTarget.checked)}
              label={t('team.members.revokeKeys', { count: active })}
              description={t('team.members.revokeKeysHint', { count: active })}
            />
          </Stack>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            disabled={keys.isPending}
            // Keys made after the count was read are revoked too when the box is left checked.
            onClick={() => remove.mutate({ user_id: member.user_id, revoke_keys: revokeKeys })}
          >
            {t('team.members.remove')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
