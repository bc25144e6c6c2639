import { Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useDocumentTitle } from '../lib/title.ts';

type Props = {
  title: string;
  description?: ReactNode;
  /** Buttons beside the title (e.g. "Create key"). */
  actions?: ReactNode;
  children: ReactNode;
};

/** A page inside the shell: its one `<h1>` (also the tab's title), an optional description and actions, then the content. */
export function Page({ title, description, actions, children }: Props) {
  useDocumentTitle(title);
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <Stack gap={4}>
          <Title order={1} size="h2">
            {title}
          </Title>
          {description && (
            <Text c="dimmed" size="sm" maw={720}>
              {description}
            </Text>
          )}
        </Stack>
        {actions && <Group gap="xs">{actions}</Group>}
      </Group>
      {children}
    </Stack>
  );
}
