import { Alert, Button, Group, Stack, Table, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import type { InvitationPreview } from '@merma/schema/dashboard';
import { useMutation, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { type ErrorComponentProps, getRouteApi, useLocation } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink, ButtonLink } from '../../components/links.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { useFormat } from '../../lib/format.ts';
import { useEnterApp, useLeaveApp } from '../../lib/session.ts';
import { trpc } from '../../trpc.ts';
import { PasswordFields, type PasswordValues, passwordRules, refusedPassword, showRefusedPassword } from './PasswordFields.tsx';

const route = getRouteApi('/invitation');

export function InvitationPage() {
  const { t } = useTranslation();
  const { token } = route.useSearch();
  if (!token) return <InvalidInvitation />;
  return (
    <AuthLayout title={t('invitation.title')}>
      <Invitation token={token} />
    </AuthLayout>
  );
}

function Invitation({ token }: { token: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const { data: invitation } = useSuspenseQuery(trpc.accounts.invitation.queryOptions({ token }));
  return (
    <Stack gap="md">
      <Table variant="vertical" layout="fixed" withTableBorder>
        <Table.Caption>{t('invitation.summary')}</Table.Caption>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={140}>{t('invitation.organization')}</Table.Th>
            <Table.Td>{invitation.organization}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('invitation.email')}</Table.Th>
            <Table.Td>{invitation.email}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('invitation.role')}</Table.Th>
            <Table.Td>{t(`roles.${invitation.role}`)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>{t('invitation.expires')}</Table.Th>
            <Table.Td>{format.dateTime(invitation.expires_at)}</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      {invitation.has_account ? <AcceptAsMember token={token} invitation={invitation} /> : <CreateAccount token={token} />}
    </Stack>
  );
}

/** Someone new: chooses a name and a password, and joins. */
function CreateAccount({ token }: { token: string }) {
  const { t } = useTranslation();
  const enterApp = useEnterApp();
  const form = useForm<PasswordValues & { name: string }>({
    initialValues: { name: '', password: '', confirm: '' },
    validate: { ...passwordRules(t), name: (value) => (value.trim() ? null : t('validation.required')) },
  });
  const accept = useMutation(
    trpc.accounts.acceptInvitation.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (me) => enterApp(me),
      onError: (error) => showRefusedPassword(form, t, error),
    }),
  );
  return (
    <form onSubmit={form.onSubmit(({ name, password }) => accept.mutate({ token, name: name.trim(), password }))} noValidate>
      <Stack gap="md">
        {accept.error && !refusedPassword(accept.error) && <ErrorAlert error={accept.error} />}
        <TextInput label={t('invitation.name')} autoComplete="name" required {...form.getInputProps('name')} />
        <PasswordFields form={form} />
        <Group justify="flex-end">
          <Button type="submit" loading={accept.isPending}>
            {t('invitation.accept')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The address has an account: accepting needs that account's session. */
function AcceptAsMember({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const { t } = useTranslation();
  const location = useLocation();
  const enterApp = useEnterApp();
  const leaveApp = useLeaveApp();
  const me = useQuery({ ...trpc.accounts.me.queryOptions(), retry: false });
  const accept = useMutation(
    trpc.accounts.acceptInvitation.mutationOptions({ meta: { inlineError: true }, onSuccess: (m) => enterApp(m) }),
  );
  const signOut = useMutation(trpc.accounts.signOut.mutationOptions({ onSettled: () => leaveApp() }));

  if (me.isPending) return null;
  const signedInAs = me.data?.user.email;
  if (signedInAs && signedInAs.toLowerCase() === invitation.email.toLowerCase()) {
    return (
      <Stack gap="md">
        {accept.error && <ErrorAlert error={accept.error} />}
        <Group justify="flex-end">
          <Button onClick={() => accept.mutate({ token })} loading={accept.isPending}>
            {t('invitation.accept')}
          </Button>
        </Group>
      </Stack>
    );
  }
  return (
    <Stack gap="md">
      <Alert color="blue" variant="light">
        {signedInAs
          ? t('invitation.wrongAccount', { current: signedInAs, email: invitation.email })
          : t('invitation.signInFirst', { email: invitation.email })}
      </Alert>
      <Group justify="flex-end">
        {signedInAs ? (
          <Button variant="default" onClick={() => signOut.mutate()} loading={signOut.isPending}>
            {t('shell.signOut')}
          </Button>
        ) : (
          <ButtonLink to="/sign-in" search={{ redirect: location.href }}>
            {t('auth.signIn.title')}
          </ButtonLink>
        )}
      </Group>
    </Stack>
  );
}

function InvalidInvitation() {
  const { t } = useTranslation();
  return (
    <AuthLayout title={t('invitation.title')}>
      <Alert color="red" variant="light" role="alert">
        {t('invitation.invalid')}
      </Alert>
      <AnchorLink to="/sign-in" size="sm">
        {t('auth.backToSignIn')}
      </AnchorLink>
    </AuthLayout>
  );
}

/** The invitation could not be read: an unknown, used or expired link says so in plain words. */
export function InvitationError({ error }: ErrorComponentProps) {
  const code = errorInfo(error).code;
  if (code === 'not_found' || code === 'validation_error' || code === 'conflict') return <InvalidInvitation />;
  return <ErrorAsPage error={error} />;
}

function ErrorAsPage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  return (
    <AuthLayout title={t('invitation.title')}>
      <ErrorAlert error={error} />
    </AuthLayout>
  );
}
