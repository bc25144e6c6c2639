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
