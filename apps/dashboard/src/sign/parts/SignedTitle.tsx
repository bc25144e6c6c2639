import { Alert, Group, Paper, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconInfoCircle } from '@tabler/icons-react';
import { useEffect, useRef } from 'react';

/**
 * The top of a signed document's screen: its title (the page's heading, focused when the screen
 * opens, so a screen reader starts there), who signed and when, and — when this visit's signature
 * was not the one kept — a word that the document had been signed already.
 */
export function SignedTitle({ title, signedBy, already }: { title: string; signedBy: string; already: string | null }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  return (
    <Paper withBorder p="md" radius="md">
      <Group gap="sm" wrap="nowrap" align="center">
        <ThemeIcon color="teal" variant="light" size={48} radius="xl" aria-hidden>
          <IconCircleCheck size={32} />
        </ThemeIcon>
        <Title order={1} size="h2" ref={headingRef} tabIndex={-1}>
          {title}
        </Title>
      </Group>
      <Text mt="sm" size="lg">
        {signedBy}
      </Text>
      {already && (
        <Alert mt="md" color="yellow" icon={<IconInfoCircle aria-hidden />} role="status">
          {already}
        </Alert>
      )}
    </Paper>
  );
}
