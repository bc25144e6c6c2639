import { Alert, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * The props of a link inside an EmptyHint: the alert's own text colour, underlined (the link
 * colour is under AA contrast on the alert's light teal).
 */
export const hintLink = { size: 'sm', c: 'var(--alert-color)', underline: 'always' } as const;

/**
 * A page's "nothing here yet" notice: why there is nothing to show (one paragraph per line given)
 * and links to where the missing data comes from.
 */
export function EmptyHint({ title, lines, links, testId }: { title: string; lines: ReactNode[]; links: ReactNode; testId?: string }) {
  return (
    <Alert color="teal" variant="light" title={title} data-testid={testId}>
      <Stack gap="xs">
        {lines.filter(Boolean).map((line, i) => (
          // The lines are fixed for a given render: their position is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <Text size="sm" key={i}>
            {line}
          </Text>
        ))}
        <Group gap="md">{links}</Group>
      </Stack>
    </Alert>
  );
}
