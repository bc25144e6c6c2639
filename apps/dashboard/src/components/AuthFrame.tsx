import { Box, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

type Props = {
  /** The app's name, in the page's language. */
  appName: string;
  title: string;
  description?: ReactNode;
  /** Beside the name: the language. */
  corner: ReactNode;
  children: ReactNode;
};

/**
 * What the pages before signing in look like: a centred card with the page's `<h1>`. Shared by
 * `AuthLayout` and the sign-in page's first frame (src/frame/Frame.tsx), which the build writes
 * into the HTML so that the page paints before its scripts have run.
 */
export function AuthFrame({ appName, title, description, corner, children }: Props) {
  return (
    <Box bg="var(--mantine-color-gray-0)" mih="100vh">
      <Container size={460} py={48} component="main">
        <Group justify="space-between" mb="lg">
          <Text fw={700} size="lg" c="teal.9">
            {appName}
          </Text>
          {corner}
        </Group>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Stack gap="md">
            <Stack gap={4}>
              <Title order={1} size="h2">
                {title}
              </Title>
              {description && (
                <Text c="dimmed" size="sm">
                  {description}
                </Text>
              )}
            </Stack>
            {children}
          </Stack>
        </Paper>
      </Container>
    </Box>
  );
}
