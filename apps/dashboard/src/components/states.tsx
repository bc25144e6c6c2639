import { Alert, Button, Center, Container, Loader, Stack, Title } from '@mantine/core';
import { type ErrorComponentProps, useRouter } from '@tanstack/react-router';
import { useTranslation } from 'react-i18next';
import { errorInfo, SignedOutError } from '../lib/errors.ts';
import { ErrorAlert } from './ErrorAlert.tsx';
import { AnchorLink } from './links.tsx';

/** Shown while a page loads its data. */
export function PagePending() {
  const { t } = useTranslation();
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Loader aria-label={t('common.loading')} />
    </Center>
  );
}

/** A page whose data could not be loaded: what went wrong, and a way to try again. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const { t } = useTranslation();
  const router = useRouter();
  if (error instanceof SignedOutError) return <PagePending />;
  const code = errorInfo(error).code;
  return (
    <Stack gap="lg">
      <Title order={1} size="h2">
        {t('errors.pageTitle')}
      </Title>
      <ErrorAlert error={error}>
        {code === 'unauthorized' ? (
          <AnchorLink to="/sign-in" display="block" mt="sm">
            {t('auth.signIn.title')}
          </AnchorLink>
        ) : (
          <Button
            mt="sm"
            variant="light"
            color="red"
            size="xs"
            onClick={() => {
              reset();
              void router.invalidate();
            }}
          >
            {t('common.retry')}
          </Button>
        )}
      </ErrorAlert>
    </Stack>
  );
}

/** An address the dashboard does not know. */
export function NotFound() {
  const { t } = useTranslation();
  return (
    <Container size="sm" py="xl" component="main">
      <Stack gap="md">
        <Title order={1} size="h2">
          {t('notFound.title')}
        </Title>
        <Alert color="gray">{t('notFound.body')}</Alert>
        <AnchorLink to="/">{t('notFound.home')}</AnchorLink>
      </Stack>
    </Container>
  );
}
