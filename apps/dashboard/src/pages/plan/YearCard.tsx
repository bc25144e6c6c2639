import { Card, Group, Select, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The years a yearly card offers: the current one (to date) and the three before. */
const yearsUpTo = (currentYear: number) => [0, 1, 2, 3].map((back) => String(currentYear - back));

/**
 * A card of the plan page about one calendar year (the ESRS figures, the hierarchy's
 * justifications): a section named by its heading, the year to show chosen beside it, and the
 * body. `id` names the heading (the section's and its tables' accessible name).
 */
export function YearCard({
  id,
  testId,
  title,
  yearLabel,
  year,
  currentYear,
  onYear,
  printHide = false,
  children,
}: {
  id: string;
  testId: string;
  title: string;
  yearLabel: string;
  year: number;
  currentYear: number;
  onYear: (year: number) => void;
  printHide?: boolean;
  children: ReactNode;
}) {
  return (
    <Card
      withBorder
      padding="md"
      component="section"
      aria-labelledby={id}
      data-testid={testId}
      {...(printHide ? { 'data-print-hide': true } : {})}
    >
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end">
          <Title order={2} size="h3" id={id}>
            {title}
          </Title>
          {/* Hidden on paper with its label (the period printed says the year). */}
          <div data-print-hide>
            <Select
              label={yearLabel}
              data={yearsUpTo(currentYear)}
              value={String(year)}
              onChange={(v) => v && onYear(Number(v))}
              allowDeselect={false}
              w={120}
            />
          </div>
        </Group>
        {children}
      </Stack>
    </Card>
  );
}
