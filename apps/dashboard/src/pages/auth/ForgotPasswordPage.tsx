import { Alert, Button, Group, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Email } from '@merma/schema/dashboard';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { rule } from '../../lib/validation.ts';
import { trpc } from '../../trpc.ts';

export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const form = useForm({
    initialValues: { email: '' },
    validate: { email: rule(Email, t('validation.email')) },
  });
  const request = useMutation(trpc.accounts.requestPasswordReset.mutationOptions({ meta: { inlineError: true } }));

  return (
    <AuthLayout title={t('auth.forgot.title')} description={t('auth.forgot.description')}>
      {request.isSuccess ? (
        <Alert color="teal" variant="light" role="status">
          {t('auth.forgot.sent', { email: request.variables.email })}
        </Alert>
      ) : (
        <form onSubmit={form.onSubmit((values) => request.mutate(values))} noValidate>
          <Stack gap="md">
            {request.error && (
              <ErrorAlert
                error={request.error}
                message={errorInfo(request.error).code === 'rate_limited' ? t('auth.signIn.tooMany') : undefined}
              />
            )}
            <TextInput
              label={t('auth.fields.email')}
              type="email"
              autoComplete="email"
              required
              autoFocus
              {...form.getInputProps('email')}
            />
            <Group justify="flex-end">
              <Button type="submit" loading={request.isPending}>
                {t('auth.forgot.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
      <AnchorLink to="/sign-in" size="sm">
        {t('auth.backToSignIn')}
      </AnchorLink>
    </AuthLayout>
  );
}
