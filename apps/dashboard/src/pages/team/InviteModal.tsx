import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { Email, ROLES, type Role } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { rule } from '../../lib/validation.ts';
import { queryClient, trpc } from '../../trpc.ts';

/** Invites someone by e-mail with a role. Render it only while open. */
export function InviteModal({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<{ email: string; role: Role }>({
    initialValues: { email: '', role: 'developer' },
    validate: { email: rule(Email, t('validation.email')) },
  });
  const inviteErrorMessage: Partial<Record<string, () => string>> = {
    service_unavailable: () => t('team.invite.notSent'),
    rate_limited: () => t('team.invite.rateLimited'),
  };
  const invite = useMutation(
    trpc.team.invite.mutationOptions({
      meta: { inlineError: true },
      onSuccess: async (invitation) => {
        notifications.show({ color: 'teal', message: t('team.invite.sent', { email: invitation.email }) });
        await queryClient.invalidateQueries(trpc.team.pathFilter());
        onClose();
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title={t('team.invite.title')}>
      <form noValidate onSubmit={form.onSubmit((values) => invite.mutate({ email: values.email.trim(), role: values.role }))}>
        <Stack gap="md">
          {invite.error && (
            <ErrorAlert
              error={invite.error}
              // The server withdraws an invitation whose e-mail could not be sent, and limits how many are sent.
              message={inviteErrorMessage[errorInfo(invite.error).code]?.()}
            />
          )}
          <TextInput label={t('team.invite.email')} type="email" required data-autofocus {...form.getInputProps('email')} />
          <Select
            label={t('team.invite.role')}
            description={t('team.invite.roleHint')}
            data={ROLES.map((role) => ({ value: role, label: t(`roles.${role}`) }))}
            allowDeselect={false}
            required
            {...form.getInputProps('role')}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" loading={invite.isPending}>
              {t('team.invite.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
