import { Alert, Group, Loader, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { AuthLayout } from '../../components/AuthLayout.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { AnchorLink } from '../../components/links.tsx';
import { errorInfo } from '../../lib/errors.ts';
import { useEnterApp } from '../../lib/session.ts';
import { trpc } from '../../trpc.ts';

const route = getRouteApi('/link');

/** A one-time sign-in link: spends the token once, then opens the app. */
export function LinkPage() {
  const { t } = useTranslation();
  const { token } = route.useSearch();
  const enterApp = useEnterApp();
  const signIn = useMutation(
    trpc.accounts.signInWithLink.mutationOptions({ meta: { inlineError: true }, onSuccess: (me) => enterApp(me) }),
  );
  const { mutate } = signIn;
  // The token works once: never send it twice (React's development double effects included).
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      mutate({ token });
    }
  }, [token, mutate]);

  const code = signIn.error ? errorInfo(signIn.error).code : null;
  return (
    <AuthLayout title={t('auth.link.title')}>
      {!token || code === 'validation_error' || code === 'not_found' || code === 'unauthorized' || code === 'conflict' ? (
        <Alert color="red" variant="light" role="alert">
          {t('auth.link.invalid')}
        </Alert>
      ) : signIn.error ? (
        <ErrorAlert error={signIn.error} />
      ) : (
        <Group gap="sm" role="status">
          <Loader size="sm" aria-hidden />
          <Text>{t('auth.link.signingIn')}</Text>
        </Group>
      )}
      {(!token || signIn.error) && (
        <AnchorLink to="/sign-in" size="sm">
          {t('auth.backToSignIn')}
        </AnchorLink>
      )}
    </AuthLayout>
  );
}
