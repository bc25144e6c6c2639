import { Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

type Props = {
  offset: number;
  limit: number;
  total: number;
  hasMore: boolean;
  onChange: (offset: number) => void;
};

/** Previous / next paging of an offset-paged list, with "21–40 of 95". */
export function Pager({ offset, limit, total, hasMore, onChange }: Props) {
  const { t } = useTranslation();
  if (total === 0) return null;
  const from = offset + 1;
  const to = Math.min(offset + limit, total);
  return (
    <Group justify="space-between" gap="sm">
      <Text size="sm" c="dimmed" aria-live="polite">
        {t('pager.range', { from, to, total })}
      </Text>
      <Group gap="xs">
        <Button
          variant="default"
          size="xs"
          leftSection={<IconChevronLeft size={14} aria-hidden />}
          disabled={offset === 0}
          onClick={() => onChange(Math.max(0, offset - limit))}
        >
          {t('pager.previous')}
        </Button>
        <Button
          variant="default"
          size="xs"
          rightSection={<IconChevronRight size={14} aria-hidden />}
          disabled={!hasMore}
          onClick={() => onChange(offset + limit)}
        >
          {t('pager.next')}
        </Button>
      </Group>
    </Group>
  );
}

type CursorProps = {
  /** The cursors of the pages before this one (empty on the first page). */
  cursors: string[];
  setCursors: (update: (cursors: string[]) => string[]) => void;
  /** The cursor of the page after this one, if there is one. */
  next: string | null | undefined;
  /** A later page is loading. */
  loading: boolean;
};

/** Previous / next paging of a keyset-paged list (the records): back through the cursors seen. */
export function CursorPager({ cursors, setCursors, next, loading }: CursorProps) {
  const { t } = useTranslation();
  return (
    <Group gap="xs">
      <Button variant="default" size="xs" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
        {t('pager.previous')}
      </Button>
      <Button variant="default" size="xs" disabled={!next} loading={loading} onClick={() => next && setCursors((c) => [...c, next])}>
        {t('pager.next')}
      </Button>
    </Group>
  );
}
