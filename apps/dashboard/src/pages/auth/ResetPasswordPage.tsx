import { Alert, Button, Group, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { useEnterApp } from '../../lib/session.ts';
import { trpc } from '../../trpc.ts';
import { PasswordFields, type PasswordValues, passwordRules, refusedPassword, showRefusedPassword } from './PasswordFields.tsx';

const route = getRouteApi('/reset-password');

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const { token } = route.useSearch();
  const enterApp = useEnterApp();
  const form = useForm<PasswordValues>({ initialValues: { password: '', confirm: '' }, validate: passwordRules(t) });
  const reset = useMutation(
    trpc.accounts.resetPassword.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (me) => enterApp(me),
      onError: (error) => showRefusedPassword(form, t, error),
    }),
  );

  const linkProblem = reset.error && ['validation_error', 'not_found', 'conflict'].includes(errorInfo(reset.error).code);

  return (
    <AuthLayout title={t('auth.reset.title')} description={t('auth.reset.description')}>
      {!token ? (
        <Alert color="red" variant="light" role="alert">
          {t('auth.link.invalid')}
        </Alert>
      ) : (
        <form onSubmit={form.onSubmit(({ password }) => reset.mutate({ token, password }))} noValidate>
          <Stack gap="md">
            {reset.error && !refusedPassword(reset.error) && (
              <ErrorAlert error={reset.error} message={linkProblem ? t('auth.link.invalid') : undefined} />
            )}
            <PasswordFields form={form} />
            <Group justify="flex-end">
              <Button type="submit" loading={reset.isPending}>
                {t('auth.reset.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      <AnchorLink to="/forgot-password" size="sm">
        {t('auth.reset.newLink')}
      </AnchorLink>
    </AuthLayout>
  );
}
