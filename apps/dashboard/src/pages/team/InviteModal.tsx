import { Button, Group, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Email, ROLES, type Role } from '@merma/schema/dashboard';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { SecretFormModal, useMutationKeepingResult } from '../../components/SecretFormModal.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { errorInfo } from '../../lib/errors.ts';
import { notifications } from '../../lib/notify.ts';
import { rule } from '../../lib/validation.ts';
import { trpc } from '../../trpc.ts';

/**
 * Invites someone by e-mail with a role, in the inviter's dashboard language (the e-mail's). Render
 * it only while open. When the server sends no e-mail (no SMTP server), it says so and shows the
 * invitation link once, as a secret, for the inviter to pass on.
 */
export function InviteModal({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const form = useForm<{ email: string; role: Role }>({
    // The least privilege until the inviter chooses more.
    initialValues: { email: '', role: 'viewer' },
    validate: { email: rule(Email, t('validation.email')) },
  });
  const inviteErrorMessage: Partial<Record<string, () => string>> = {
    service_unavailable: () => t('team.invite.notSent'),
    rate_limited: () => t('team.invite.rateLimited'),
  };
  const { mutation: invite, result } = useMutationKeepingResult(
    trpc.team.invite.mutationOptions({
      onSuccess: (invitation) => {
        if (invitation.mailed) {
          notifications.show({ color: 'teal', message: t('team.invite.sent', { email: invitation.email }) });
          onClose();
        }
      },
    }),
    trpc.team.pathFilter(),
  );
  const shown =
    result && !result.mailed && result.link
      ? {
          title: t('team.invite.notMailedTitle'),
          label: t('team.invite.link'),
          secret: result.link,
          warning: t('team.invite.notMailed', { email: result.email }),
          multiline: true,
        }
      : null;
  return (
    <SecretFormModal onClose={onClose} title={t('team.invite.title')} shown={shown}>
      <form
        noValidate
        onSubmit={form.onSubmit((values) => invite.mutate({ email: values.email.trim(), role: values.role, language: currentLanguage() }))}
      >
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
    </SecretFormModal>
  );
}
