import { Box, Center, Container, Paper } from '@mantine/core';
import type { ErrorComponentProps } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useDocumentTitle } from '../lib/title.ts';
import { AuthFrame } from './AuthFrame.tsx';
import { LanguageSwitcher } from './LanguageSwitcher.tsx';
import { RouteError } from './states.tsx';

type Props = {
  title: string;
  description?: ReactNode;
  children: ReactNode;
};

/** The frame of the pages used before signing in: a centred card, the page's `<h1>`, the language. */
export function AuthLayout({ title, description, children }: Props) {
  const { t } = useTranslation();
  useDocumentTitle(title);
  return (
    <AuthFrame appName={t('app.name')} title={title} description={description} corner={<LanguageSwitcher />}>
      {children}
    </AuthFrame>
  );
}

/** A page before sign-in that failed to load (e.g. an expired link). */
export function AuthRouteError(props: ErrorComponentProps) {
  return (
    <Box bg="var(--mantine-color-gray-0)" mih="100vh">
      <Container size={460} py={48} component="main">
        <Center>
          <Paper withBorder p="xl" radius="md" w="100%">
            <RouteError {...props} />
          </Paper>
        </Center>
      </Container>
    </Box>
  );
}
