import { Alert, Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { isEmail, useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { errorInfo, errorText } from '../../lib/errors.ts';
import { useEnterApp } from '../../lib/session.ts';
import { trpc } from '../../trpc.ts';

const route = getRouteApi('/sign-in');

/** In the first bundle: it imports nothing heavy (no @merma/schema, whose zod the other pages load). */
export function SignInPage() {
  const { t, i18n } = useTranslation();
  const { redirect } = route.useSearch();
  const enterApp = useEnterApp();
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: isEmail(t('validation.email')),
      password: (value) => (value ? null : t('validation.required')),
    },
  });
  const signIn = useMutation(
    trpc.accounts.signIn.mutationOptions({
      meta: { inlineError: true },
      onSuccess: (me) => enterApp(me, redirect),
    }),
  );

  const failure = signIn.error ? errorInfo(signIn.error).code : null;
  const failureText =
    failure === 'unauthorized' || failure === 'validation_error'
      ? t('auth.signIn.invalid')
      : failure === 'rate_limited'
        ? t('auth.signIn.tooMany')
        : signIn.error
          ? errorText(i18n, signIn.error)
          : null;

  return (
    <AuthLayout title={t('auth.signIn.title')} description={t('auth.signIn.description')}>
      <form onSubmit={form.onSubmit((values) => signIn.mutate(values))} noValidate>
        <Stack gap="md">
          {failureText && (
            <Alert color="red" variant="light" role="alert">
              {failureText}
            </Alert>
          )}
          <TextInput
            label={t('auth.fields.email')}
            type="email"
            autoComplete="username"
            required
            withAsterisk={false}
            autoFocus
            {...form.getInputProps('email')}
          />
          <PasswordInput
            label={t('auth.fields.password')}
            autoComplete="current-password"
            required
            withAsterisk={false}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
            {...form.getInputProps('password')}
          />
          <Group justify="space-between">
            <AnchorLink to="/forgot-password" size="sm">
              {t('auth.signIn.forgot')}
            </AnchorLink>
            <Button type="submit" loading={signIn.isPending}>
              {t('auth.signIn.submit')}
            </Button>
          </Group>
        </Stack>
      </form>
    </AuthLayout>
  );
}
